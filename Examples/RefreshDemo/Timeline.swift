import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Prints what happens, with the time since the demo started, and counts it.
///
/// Tokens are shown as "token A", "token B"… — never their value. Each request's lines (sent,
/// answered) are printed only when `verbose`; refreshes and session events always are.
final class Timeline: PluginType, @unchecked Sendable {
    // `lock` guards every mutable field below.
    private let lock = NSLock()
    private let start = Date()
    /// Whether every request and response gets its own line.
    let verbose: Bool
    private var labels: [String: String] = [:]
    private var attempts: [String: Int] = [:]
    private(set) var sent = 0
    private(set) var rejected = 0
    private(set) var replays = 0
    private(set) var refreshCalls = 0

    init(verbose: Bool) {
        self.verbose = verbose
    }

    func print(_ symbol: String, _ text: String) {
        let elapsed = Date().timeIntervalSince(start)
        Swift.print(String(format: "  %7.3fs  %@ %@", elapsed, symbol, text))
    }

    /// A stable, secret-free name for an access token.
    func label(forAccessToken token: String?) -> String {
        guard let token else { return "no token" }
        return lock.withLock {
            if let label = labels[token] { return label }
            let letter = Character(UnicodeScalar(UInt8(65 + labels.count % 26)))
            let label = "token \(letter)"
            labels[token] = label
            return label
        }
    }

    func willSend(_ request: URLRequest, target: any TargetType) {
        let header = request.value(forHTTPHeaderField: "Authorization")
        let token = header.map { String($0.drop { $0 != " " }.dropFirst()) }
        let attempt = lock.withLock {
            sent += 1
            attempts[target.path, default: 0] += 1
            if attempts[target.path, default: 0] > 1 { replays += 1 }
            return attempts[target.path, default: 0]
        }
        let label = label(forAccessToken: token)
        guard verbose else { return }
        let replay = attempt > 1 ? "  (replay)" : ""
        print("→", "GET /\(target.path) with \(label)\(replay)")
    }

    func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
        switch result {
        case .success(let response):
            if response.statusCode == 401 { lock.withLock { rejected += 1 } }
            if verbose { print("←", "\(response.statusCode) /\(target.path)") }
        case .failure(let error):
            print("✗", "/\(target.path): \(error)")
        }
    }

    func refreshStarted() {
        lock.withLock { refreshCalls += 1 }
        print("⟳", "refresh call to POST /oauth/token")
    }

    var counts: (sent: Int, rejected: Int, replays: Int, refreshCalls: Int) {
        lock.withLock { (sent, rejected, replays, refreshCalls) }
    }

    func resetCounts() {
        lock.withLock {
            sent = 0
            rejected = 0
            replays = 0
            refreshCalls = 0
            attempts = [:]
        }
    }
}
