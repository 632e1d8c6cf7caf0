import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Prints what happens, with the time since the demo started, and counts it.
///
/// Tokens are shown as "token A", "token B"… — never their value. Each request's lines (sent,
/// answered) are printed only when `verbose`; refreshes and session events always are.
final class Timeline: PluginType, Sendable {
    /// What the timeline counts, behind one lock.
    private struct Counts {
        var labels: [String: String] = [:]
        var attempts: [String: Int] = [:]
        var sent = 0
        var rejected = 0
        var replays = 0
        var refreshCalls = 0
    }

    private let start = Date()
    /// Whether every request and response gets its own line.
    let verbose: Bool
    private let state = LockIsolated(Counts())

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
        return state.withValue { state in
            if let label = state.labels[token] { return label }
            let letter = Character(UnicodeScalar(UInt8(65 + state.labels.count % 26)))
            let label = "token \(letter)"
            state.labels[token] = label
            return label
        }
    }

    func willSend(_ request: URLRequest, target: any TargetType) {
        let header = request.value(forHTTPHeaderField: "Authorization")
        let token = header.map { String($0.drop { $0 != " " }.dropFirst()) }
        let attempt = state.withValue { state in
            state.sent += 1
            state.attempts[target.path, default: 0] += 1
            if state.attempts[target.path, default: 0] > 1 { state.replays += 1 }
            return state.attempts[target.path, default: 0]
        }
        let label = label(forAccessToken: token)
        guard verbose else { return }
        let replay = attempt > 1 ? "  (replay)" : ""
        print("→", "GET /\(target.path) with \(label)\(replay)")
    }

    func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
        switch result {
        case .success(let response):
            if response.statusCode == 401 { state.withValue { $0.rejected += 1 } }
            if verbose { print("←", "\(response.statusCode) /\(target.path)") }
        case .failure(let error):
            print("✗", "/\(target.path): \(error)")
        }
    }

    func refreshStarted() {
        state.withValue { $0.refreshCalls += 1 }
        print("⟳", "refresh call to POST /oauth/token")
    }

    var counts: (sent: Int, rejected: Int, replays: Int, refreshCalls: Int) {
        let counts = state.value
        return (counts.sent, counts.rejected, counts.replays, counts.refreshCalls)
    }

    func resetCounts() {
        state.withValue { state in
            state.sent = 0
            state.rejected = 0
            state.replays = 0
            state.refreshCalls = 0
            state.attempts = [:]
        }
    }
}
