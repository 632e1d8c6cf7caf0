import Courier
import CourierTestServer
import CourierTestServerTargets
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A bounded soak against the test server: many concurrent tasks send requests while the
/// server expires every access token each second and injects random transient faults.
///
/// Used by the integration tests (a few seconds) and by the benchmark executable (longer).
public struct SoakRun: Sendable {
    /// How the run is shaped.
    public struct Configuration: Sendable {
        /// How long traffic runs while tokens are expired, in seconds.
        public var duration: TimeInterval
        /// How many tasks send requests concurrently.
        public var workers: Int
        /// Seconds between two expiries of every access token on the server.
        public var expiryInterval: TimeInterval
        /// The probability that a protected request answers 503.
        public var apiFaultRate: Double
        /// The probability that a token request answers 500.
        public var tokenFaultRate: Double
        /// How many rounds the duration is cut into, to watch memory between rounds.
        public var rounds: Int

        /// Creates a configuration.
        public init(
            duration: TimeInterval = 10, workers: Int = 16, expiryInterval: TimeInterval = 1,
            apiFaultRate: Double = 0.05, tokenFaultRate: Double = 0.1, rounds: Int = 4
        ) {
            self.duration = duration
            self.workers = workers
            self.expiryInterval = expiryInterval
            self.apiFaultRate = apiFaultRate
            self.tokenFaultRate = tokenFaultRate
            self.rounds = max(1, rounds)
        }
    }

    /// What happened.
    public struct Report: Sendable, CustomStringConvertible {
        /// Requests started.
        public var started = 0
        /// Requests that completed with a response (any status).
        public var responses = 0
        /// Responses with status 200.
        public var ok = 0
        /// Responses with a status other than 200 (injected 503s once retries ran out).
        public var otherStatus = 0
        /// Requests that failed because a refresh hit an injected fault (`.refreshFailed`).
        public var refreshFailures = 0
        /// Requests that failed with any other error.
        public var otherErrors: [String] = []
        /// Completion handlers called more than once for one request (must be 0).
        public var duplicateCompletions = 0
        /// Requests whose completion never came (must be 0).
        public var missingCompletions = 0
        /// Expiries that killed a live token.
        public var expiries = 0
        /// Successful refreshes on the server.
        public var refreshSuccesses = 0
        /// Refresh requests on the server, faulted ones included.
        public var refreshRequests = 0
        /// Protected requests answered 401.
        public var rejected = 0
        /// Uses of a token long after it was replaced (must be 0).
        public var staleAfterRefresh = 0
        /// Resident memory after each round, in KiB.
        public var residentKiBPerRound: [Int] = []

        /// Requests accounted for: every started request completed exactly once.
        public var completed: Int { responses + refreshFailures + otherErrors.count }

        /// A short summary.
        public var description: String {
            """
            started \(started), completed \(completed) (\(ok) ok, \(otherStatus) other status, \
            \(refreshFailures) refresh failures, \(otherErrors.count) other errors), \
            expiries \(expiries), refreshes \(refreshSuccesses) ok of \(refreshRequests), \
            401s \(rejected), stale after refresh \(staleAfterRefresh), \
            duplicate completions \(duplicateCompletions), missing \(missingCompletions), \
            RSS per round (KiB) \(residentKiBPerRound)
            """
        }
    }

    /// The configuration.
    public let configuration: Configuration

    /// Creates a run.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Runs the soak against a fresh server and returns the report.
    public func run() async throws -> Report {
        let server = try await TestServer.start(tokenLifetime: 3600)
        defer { server.stop() }
        let base = server.baseURL
        let tokenProvider = Provider<TokenEndpoint>()
        let session = AuthSession(
            refresh: { token in
                try OAuthToken(
                    response: await tokenProvider.request(
                        TokenEndpoint(base: base, grant: .refresh(token.refreshToken ?? ""))))
            },
            refreshWindow: nil)
        try await session.signIn(
            OAuthToken(tokenResponse: try await server.issueToken(lifetime: 3600), receivedAt: Date()))
        let provider = RefreshableProvider<SoakTarget>(
            auth: session, callbackQueue: DispatchQueue(label: "soak.callbacks", attributes: .concurrent),
            retryPolicy: RetryPolicy(maxRetries: 4, baseDelay: 0.005, maximumDelay: 0.05))
        try await server.configure(
            .init(
                tokenFaultRate: configuration.tokenFaultRate, apiFaultRate: configuration.apiFaultRate,
                staleGrace: 0.5, faultSeed: 42))
        try await server.resetCounters()

        let ledger = SoakLedger()
        var report = Report()
        let roundLength = configuration.duration / Double(configuration.rounds)
        for _ in 0..<configuration.rounds {
            report.expiries += try await round(
                seconds: roundLength, provider: provider, base: base, server: server, ledger: ledger)
            report.residentKiBPerRound.append(Self.residentKiB())
        }
        // Let the last expiry be crossed by traffic, with no new expiry.
        _ = try await round(seconds: 0.8, provider: provider, base: base, server: nil, ledger: ledger)

        ledger.fill(&report)
        let counters = try await server.counters()
        report.refreshSuccesses = counters.refreshSuccesses
        report.refreshRequests = counters.refreshGrants
        report.rejected = counters.protected401
        report.staleAfterRefresh = counters.staleAfterRefresh
        return report
    }

    /// Traffic for `seconds`; with a server, expires its tokens every interval. Returns the
    /// expiries that killed a live token.
    private func round(
        seconds: TimeInterval, provider: RefreshableProvider<SoakTarget>, base: URL, server: TestServer?,
        ledger: SoakLedger
    ) async throws -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        let interval = configuration.expiryInterval
        return try await withThrowingTaskGroup(of: Int.self) { group in
            if let server {
                group.addTask {
                    var expiries = 0
                    // At least one expiry a round, however late a busy machine starts the task.
                    repeat {
                        try await Delay.sleep(seconds: interval)
                        if try await server.expireAccessTokens() > 0 { expiries += 1 }
                    } while Date().addingTimeInterval(interval) < deadline
                    return expiries
                }
            }
            for worker in 0..<configuration.workers {
                group.addTask {
                    var index = 0
                    // At least one request a round for each worker, however late a busy machine
                    // starts it: the round's length is a wall-clock budget, not the claim.
                    repeat {
                        index += 1
                        let target = SoakTarget(base: base, path: "api/soak/\(worker)/\(index)")
                        if index.isMultiple(of: 2) {
                            await Self.sendWithCompletion(target, provider: provider, ledger: ledger)
                        } else {
                            let id = ledger.start()
                            do throws(CourierError) {
                                let response = try await provider.request(target)
                                ledger.complete(id, Result<Response, CourierError>.success(response))
                            } catch {
                                ledger.complete(id, Result<Response, CourierError>.failure(error))
                            }
                        }
                    } while Date() < deadline
                    return 0
                }
            }
            return try await group.reduce(0, +)
        }
    }

    private static func sendWithCompletion(
        _ target: SoakTarget, provider: RefreshableProvider<SoakTarget>, ledger: SoakLedger
    ) async {
        let id = ledger.start()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            provider.request(target) { result in
                // Resume only on the first call; a second one is counted as a duplicate.
                if ledger.complete(id, result) { continuation.resume() }
            }
        }
    }

    /// The process's resident memory, in KiB (Linux), or 0 where unknown.
    public static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}

/// A protected route on the test server.
struct SoakTarget: TargetType {
    let base: URL
    let path: String
    var baseURL: URL { base }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

/// Every request's start and completions, behind one lock.
final class SoakLedger: Sendable {
    private struct State {
        var nextID = 0
        /// Requests started and not completed yet; completed ones are dropped so the ledger
        /// itself does not grow with the run.
        var pending: Set<Int> = []
        var duplicates = 0
        var responses = 0
        var ok = 0
        var otherStatus = 0
        var refreshFailures = 0
        var otherErrors: [String] = []
    }

    private let state = LockIsolated(State())

    func start() -> Int {
        state.withValue { state in
            state.nextID += 1
            state.pending.insert(state.nextID)
            return state.nextID
        }
    }

    /// Records a completion; returns whether it was the first for `id`.
    @discardableResult
    func complete(_ id: Int, _ result: Result<Response, some Error>) -> Bool {
        let refreshFailed: Bool
        if case .failure(let error) = result, case .authentication(.refreshFailed) = error as? CourierError {
            refreshFailed = true
        } else {
            refreshFailed = false
        }
        let errorText: String? = if case .failure(let error) = result { "\(error)" } else { nil }
        let statusCode: Int? = if case .success(let response) = result { response.statusCode } else { nil }
        return state.withValue { state in
            guard state.pending.remove(id) != nil else {
                state.duplicates += 1
                return false
            }
            if let statusCode {
                state.responses += 1
                if statusCode == 200 { state.ok += 1 } else { state.otherStatus += 1 }
            } else if refreshFailed {
                state.refreshFailures += 1
            } else if let errorText {
                state.otherErrors.append(errorText)
            }
            return true
        }
    }

    func fill(_ report: inout SoakRun.Report) {
        let state = state.value
        report.started = state.nextID
        report.responses = state.responses
        report.ok = state.ok
        report.otherStatus = state.otherStatus
        report.refreshFailures = state.refreshFailures
        report.otherErrors = state.otherErrors
        report.duplicateCompletions = state.duplicates
        report.missingCompletions = state.pending.count
    }
}
