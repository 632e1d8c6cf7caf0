import Courier
import CourierTestServerTargets
import Foundation

#if PostgreSQLStore
    import CourierPostgres
#endif
#if OpenSSLSigning
    import CourierOpenSSL
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One process of the cross-process integration tests: sessions on `FileTokenStore`s of a
/// shared token file, sending signed requests to the test server, and telling the test what
/// happens on standard output, one line per event:
///
/// - `READY` once set up; in `work` mode it then waits for a line `GO` on standard input
///   (unless `--go`), so all processes start together;
/// - `REFRESH` each time one of its refresh closures calls the token endpoint;
/// - `STALLED` when a refresh claimed the stall file (`--stall-file`): that refresh then never
///   returns, holding the lease, until the test kills the process (`kill -9`);
/// - `DONE requests=… ok=… auth=… other=… logouts=… refreshes=…` at the end;
/// - `CHECK needsSignIn=… ok=…` in `check` mode (a fresh process that uses the file);
/// - `HOLDING`, then `KEPT` or `SENT`, then `RESULT ok=…` in `frozen` mode (see `frozen`).
///
/// With `--postgres` (built with the PostgreSQLStore trait) the sessions share a
/// `PostgresTokenStore` instead of the token file: one session per key of `--keys`, on one
/// `PostgresDatabase` of the process. Then the lines name the key (`REFRESH k`), and in
/// `work` mode, after `GO`:
///
/// - `HOLDING k` when a refresh claimed the freeze file (`--freeze-file`): it waits for a line
///   `SEND` (the test stops the process meanwhile, past its lease, and continues it), then its
///   request goes out from a task the session's abandonment does not cancel, and it says
///   `KEPT k` when the lost lease kept the refresh token home, `SENT k` when it left;
/// - `WRITING k` when the write of a refreshed token claimed the restart file
///   (`--restart-file`): the token endpoint has answered, and the write waits for a line
///   `RESUME` (the test restarts the database meanwhile).
///
/// ```
/// CourierCrossProcessChild --server URL --token-file PATH [--mode work|check] [--sessions K]
///     [--workers N] [--duration S] [--interval S] [--leeway S] [--stall-file PATH] [--go]
///     [--refresh-timeout S] [--abandon-after S] [--dpop]
///     [--postgres CONNINFO --keys K1,K2,… [--freeze-file PATH] [--restart-file PATH]]
/// ```
///
/// `--dpop` makes the sessions DPoP-bound (`OpenSSLP256Key.Factory()`): only in a build with the
/// `OpenSSLSigning` trait (CourierOpenSSLTests launches it so); elsewhere it is refused.
@main
enum CrossProcessChild {
    static func main() async {
        let options: Options
        do {
            options = try Options(CommandLine.arguments.dropFirst())
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(2)
        }
        #if !OpenSSLSigning
            if options.dpop {
                FileHandle.standardError.write(Data("error: --dpop needs the OpenSSLSigning trait\n".utf8))
                exit(2)
            }
        #endif
        switch options.mode {
        case "check": exit(await check(options))
        case "frozen": exit(await frozen(options))
        default: exit(await work(options))
        }
    }

    // MARK: Modes

    /// Sends signed requests from `workers` tasks per session until `duration` has passed.
    static func work(_ options: Options) async -> Int32 {
        let tally = Tally()
        let sessions: [AuthSession]
        do {
            sessions = try makeSessions(options, tally: tally)
        } catch {
            say("FAILED \(error)")
            return 4
        }
        for session in sessions {
            Task {
                for await event in session.events where event == .sessionExpired { tally.add(\.logouts) }
            }
        }
        say("READY")
        if !options.go {
            guard readLine() == "GO" else { return 3 }
        }
        // Later lines (`SEND`, `RESUME`) are for the held refreshes and writes.
        Input.shared.start()
        let deadline = ContinuousClock.now + .milliseconds(Int(options.duration * 1000))
        await withTaskGroup(of: Void.self) { group in
            for session in sessions {
                let provider = RefreshableProvider<ChildAPI>(
                    auth: session, authPlugin: AuthPlugin(auth: session, refreshLeeway: options.leeway))
                for worker in 0..<options.workers {
                    group.addTask {
                        var index = 0
                        while ContinuousClock.now < deadline {
                            index += 1
                            await send(provider, ChildAPI(base: options.server, path: "api/w\(worker)/\(index)"), tally)
                            try? await Task.sleep(for: .milliseconds(Int(options.interval * 1000)))
                        }
                    }
                }
            }
        }
        let counts = tally.counts
        say(
            "DONE requests=\(counts.requests) ok=\(counts.ok) auth=\(counts.auth) other=\(counts.other) "
                + "storeDown=\(counts.storeDown) timedOut=\(counts.timedOut) logouts=\(counts.logouts) refreshes=\(counts.refreshes) \(counts.firstFailure)"
        )
        return 0
    }

    /// A fresh process on the file: it must need no sign-in and its request must succeed.
    static func check(_ options: Options) async -> Int32 {
        let tally = Tally()
        let sessions: [AuthSession]
        do {
            // One session on the file (whatever --sessions says), one per key on the database.
            sessions =
                options.postgres == nil
                ? [makeSession(options, store: FileTokenStore(url: options.tokenFile), key: nil, tally: tally)]
                : try makeSessions(options, tally: tally)
        } catch {
            say("FAILED \(error)")
            return 4
        }
        var needSignIn = 0
        for session in sessions {
            if await session.needsSignIn { needSignIn += 1 }
            let provider = RefreshableProvider<ChildAPI>(auth: session)
            await send(provider, ChildAPI(base: options.server, path: "api/check"), tally)
        }
        // On one session (the token file), `needsSignIn` is a Boolean, as it always was.
        let needsSignIn = options.postgres == nil ? "\(needSignIn > 0)" : "\(needSignIn)"
        say("CHECK needsSignIn=\(needsSignIn) ok=\(tally.counts.ok) \(tally.counts.firstFailure)")
        return 0
    }

    /// One refresh, held at the point where its request is about to leave until a line `SEND`
    /// arrives (the test stops this process there, lets another one take the lease over, and
    /// continues it). The request then goes out from a task the session's abandonment does not
    /// cancel, so only the lease check keeps the stale refresh token home: `KEPT` when it did,
    /// `SENT` when the request left. Then `RESULT ok=1` once the session has a token.
    static func frozen(_ options: Options) async -> Int32 {
        let tokens = Provider<TokenEndpoint>()
        let server = options.server
        let (finished, finish) = AsyncStream.makeStream(of: Void.self)
        let held = Locked(false)
        let session = AuthSession(
            store: FileTokenStore(url: options.tokenFile),
            refresh: { token in
                // Only the first call is held: on a machine so loaded that the session gave up
                // on it before the test stopped this process, the next one goes out at once.
                let first = held.withValue { held in
                    defer { held = true }
                    return !held
                }
                if !first {
                    let response = try await tokens.request(
                        TokenEndpoint(base: server, grant: .refresh(token.refreshToken ?? "")))
                    return try OAuthToken(response: response)
                }
                defer { finish.yield() }
                say("HOLDING")
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    Thread {
                        _ = readLine()
                        continuation.resume()
                    }.start()
                }
                let sent = await Task { () -> Result<Response, CourierError> in
                    do throws(CourierError) {
                        return .success(
                            try await tokens.request(
                                TokenEndpoint(base: server, grant: .refresh(token.refreshToken ?? ""))))
                    } catch {
                        return .failure(error)
                    }
                }.value
                switch sent {
                case .success(let response):
                    say("SENT")
                    return try OAuthToken(response: response)
                case .failure(let error):
                    if case .underlying(let underlying, _) = error, underlying is TokenLeaseLost {
                        say("KEPT")
                    } else {
                        say("FAILED \(error)")
                    }
                    throw error
                }
            },
            refreshTimeout: options.refreshTimeout ?? 30, abandonRefreshAfter: options.abandonAfter)
        say("READY")
        var ok = 0
        for _ in 0..<100 where ok == 0 {
            if (try? await session.validToken()) != nil { ok = 1 }
        }
        for await _ in finished { break }
        say("RESULT ok=\(ok)")
        return 0
    }

    // MARK: Pieces

    /// `sessions` sessions on the token file, or with `--postgres` one per key on one database.
    static func makeSessions(_ options: Options, tally: Tally) throws -> [AuthSession] {
        guard let connection = options.postgres else {
            return (0..<options.sessions).map { _ in
                makeSession(options, store: FileTokenStore(url: options.tokenFile), key: nil, tally: tally)
            }
        }
        #if PostgreSQLStore
            let database = try PostgresDatabase(connection: connection, maximumConnections: 2)
            return options.keys.map { key in
                let store = PostgresTokenStore(database: database, key: key)
                return makeSession(
                    options, store: HoldingStore(base: store, restartFile: options.restartFile), key: key,
                    tally: tally)
            }
        #else
            throw Options.Invalid(description: "--postgres needs the PostgreSQLStore trait (\(connection.count) chars)")
        #endif
    }

    static func makeSession(_ options: Options, store: any TokenStore, key: String?, tally: Tally) -> AuthSession {
        let tokens = Provider<TokenEndpoint>()
        let server = options.server
        let stallFile = options.stallFile
        let freezeFile = options.freezeFile
        let named = key.map { " " + $0 } ?? ""
        return AuthSession(
            store: store,
            refresh: { token in
                if let stallFile, unlink(stallFile) == 0 {
                    // Chosen to be killed while it holds the lease, before its refresh reaches
                    // the server.
                    say("STALLED" + named)
                    while true { try await Task.sleep(for: .seconds(3600)) }
                }
                if let freezeFile, unlink(freezeFile) == 0 {
                    return try await heldRefresh(token, server: server, named: named, tally: tally)
                }
                tally.add(\.refreshes)
                // Said before the request leaves (the fleet test acts on it); a request the
                // session abandons on a busy machine may never reach the server, so the
                // server's count of grants lies between these and the answered ones.
                say("REFRESH" + named)
                let response = try await tokens.request(
                    TokenEndpoint(base: server, grant: .refresh(token.refreshToken ?? "")))
                say("ANSWERED" + named)
                return try OAuthToken(response: response)
            },
            // Tokens live seconds here; the guard against refresh loops must not count an
            // ordinary rotation as one.
            refreshWindow: RefreshWindow(interval: 1, maximumAttempts: 5), refreshTimeout: options.refreshTimeout ?? 30,
            abandonRefreshAfter: options.abandonAfter, dpop: keyFactory(options))
    }

    /// A refresh held before its request leaves until the line `SEND` arrives (the test stops
    /// the process meanwhile, until another process has taken the lease over), then sent from
    /// a task the session's abandonment does not cancel: only the lease check keeps the stale
    /// refresh token home (`KEPT`); `SENT` when the request left.
    static func heldRefresh(_ token: OAuthToken, server: URL, named: String, tally: Tally) async throws -> OAuthToken {
        let tokens = Provider<TokenEndpoint>()
        say("HOLDING" + named)
        await Input.shared.wait(for: "SEND")
        let sent = await Task { () -> Result<Response, CourierError> in
            do throws(CourierError) {
                return .success(
                    try await tokens.request(TokenEndpoint(base: server, grant: .refresh(token.refreshToken ?? ""))))
            } catch {
                return .failure(error)
            }
        }.value
        switch sent {
        case .success(let response):
            tally.add(\.refreshes)
            say("SENT" + named)
            say("ANSWERED" + named)
            return try OAuthToken(response: response)
        case .failure(let error):
            if case .underlying(let underlying, _) = error, underlying is TokenLeaseLost {
                say("KEPT" + named)
            } else {
                say("FAILED" + named + " \(error)")
            }
            throw error
        }
    }

    /// The sessions' DPoP keys with `--dpop`; `nil` (bearer sessions) otherwise.
    static func keyFactory(_ options: Options) -> (any DPoPKeyFactory)? {
        #if OpenSSLSigning
            return options.dpop ? OpenSSLP256Key.Factory() : nil
        #else
            return nil
        #endif
    }

    static func send(_ provider: RefreshableProvider<ChildAPI>, _ target: ChildAPI, _ tally: Tally) async {
        tally.add(\.requests)
        do {
            let response = try await provider.request(target)
            if response.statusCode == 200 {
                tally.add(\.ok)
            } else if response.statusCode == 401 {
                tally.fail(\.auth, "401 after replay")
            } else {
                tally.fail(\.other, "status \(response.statusCode)")
            }
        } catch {
            if isDatabaseDown(error) {
                tally.add(\.storeDown)
            } else if case .authentication(.refreshFailed(let reason)) = error,
                reason is RefreshTimeout || reason is TokenLeaseTimeout
            {
                // Waited longer than `--refresh-timeout` for another process's refresh (its
                // holder is stopped, and its lease has not run out yet), or longer than the
                // lease lasts for a lease taken after the wait began (its holder was killed:
                // nobody takes it over before it expires).
                tally.add(\.timedOut)
            } else if case .authentication = error {
                tally.fail(\.auth, "\(error)")
            } else {
                tally.fail(\.other, "\(error)")
            }
        }
    }

    /// Whether `error` is a request that failed because the database could not be reached
    /// (`--postgres`): a typed failure while it restarts, never a logout.
    static func isDatabaseDown(_ error: CourierError) -> Bool {
        #if PostgreSQLStore
            switch error {
            case .authentication(.storeUnavailable(let reason)), .authentication(.refreshFailed(let reason)):
                guard let reason = reason as? PostgresStoreError else { return false }
                return [.connectionFailed, .connectionLost].contains(reason.kind)
            default: return false
            }
        #else
            return false
        #endif
    }

    /// One line on standard output, written at once (never buffered: the test reads it live).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// A protected route of the test server.
struct ChildAPI: TargetType, AccessTokenAuthorizable {
    let base: URL
    let path: String
    var baseURL: URL { base }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var authorizationType: AuthorizationType? { .bearer }
}

/// What happened in this process, counted from every task.
final class Tally: Sendable {
    struct Counts: Sendable {
        var requests = 0
        var ok = 0
        var auth = 0
        var other = 0
        /// Requests that failed because the database could not be reached (`--postgres`).
        var storeDown = 0
        /// Requests that waited longer than the refresh time-out for another process's refresh.
        var timedOut = 0
        var logouts = 0
        var refreshes = 0
        var firstFailure = ""
    }

    private let state = Locked(Counts())

    var counts: Counts { state.withValue { $0 } }

    func add(_ field: WritableKeyPath<Counts, Int>) {
        state.withValue { $0[keyPath: field] += 1 }
    }

    func fail(_ field: WritableKeyPath<Counts, Int>, _ reason: String) {
        state.withValue { counts in
            counts[keyPath: field] += 1
            if counts.firstFailure.isEmpty {
                counts.firstFailure = "first-failure=" + reason.replacingOccurrences(of: "\n", with: " ")
            }
        }
    }
}

struct Options {
    var server = URL(string: "http://127.0.0.1:1")!
    var tokenFile = URL(fileURLWithPath: "/tmp/token.json")
    var mode = "work"
    var sessions = 1
    var workers = 2
    var duration: Double = 3
    var interval: Double = 0.02
    var leeway: Double = 0.5
    var stallFile: String?
    var go = false
    var refreshTimeout: Double?
    var abandonAfter: Double?
    var postgres: String?
    var keys = ["k"]
    var freezeFile: String?
    var restartFile: String?
    var dpop = false

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    init(_ arguments: ArraySlice<String>) throws {
        var remaining = arguments
        func value(_ flag: String) throws -> String {
            guard let value = remaining.popFirst() else { throw Invalid(description: "\(flag) needs a value") }
            return value
        }
        func number(_ flag: String) throws -> Double {
            let text = try value(flag)
            guard let number = Double(text), number.isFinite, number >= 0 else {
                throw Invalid(description: "\(flag): \(text)")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--server":
                let text = try value(argument)
                guard let url = URL(string: text) else { throw Invalid(description: "--server: \(text)") }
                server = url
            case "--token-file": tokenFile = URL(fileURLWithPath: try value(argument))
            case "--mode": mode = try value(argument)
            case "--sessions": sessions = max(1, Int(try number(argument)))
            case "--workers": workers = max(1, Int(try number(argument)))
            case "--duration": duration = try number(argument)
            case "--interval": interval = try number(argument)
            case "--leeway": leeway = try number(argument)
            case "--stall-file": stallFile = try value(argument)
            case "--go": go = true
            case "--refresh-timeout": refreshTimeout = try number(argument)
            case "--abandon-after": abandonAfter = try number(argument)
            case "--postgres": postgres = try value(argument)
            case "--keys": keys = try value(argument).split(separator: ",").map(String.init)
            case "--freeze-file": freezeFile = try value(argument)
            case "--restart-file": restartFile = try value(argument)
            case "--dpop": dpop = true
            default: throw Invalid(description: "unknown argument \(argument)")
            }
        }
    }
}

/// The lines that arrive on standard input after `GO`, for the refreshes and writes that wait
/// for one (`SEND`, `RESUME`): read on a thread of their own, never on the cooperative pool.
final class Input: Sendable {
    static let shared = Input()

    private struct State {
        var started = false
        var arrived: [String: Int] = [:]
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Locked(State())

    /// Starts reading (once).
    func start() {
        let first = state.withValue { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        Thread {
            while let line = readLine() {
                let resumed = self.state.withValue { state -> CheckedContinuation<Void, Never>? in
                    if var waiters = state.waiting[line], !waiters.isEmpty {
                        let first = waiters.removeFirst()
                        state.waiting[line] = waiters
                        return first
                    }
                    state.arrived[line, default: 0] += 1
                    return nil
                }
                resumed?.resume()
            }
        }.start()
    }

    /// Returns when `line` arrives (or has arrived and was not waited for yet).
    func wait(for line: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withValue { state -> Bool in
                if let count = state.arrived[line], count > 0 {
                    state.arrived[line] = count - 1
                    return true
                }
                state.waiting[line, default: []].append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

#if PostgreSQLStore
    /// A `PostgresTokenStore` whose coordinator holds the write of one refreshed token (the
    /// one that claims the restart file) until the line `RESUME` arrives: the token endpoint
    /// has answered and the database is restarted before the new token is written.
    struct HoldingStore: TokenStore {
        let base: PostgresTokenStore
        let held: HoldingCoordinator

        init(base: PostgresTokenStore, restartFile: String?) {
            self.base = base
            self.held = HoldingCoordinator(base: base.postgresCoordinator, restartFile: restartFile)
        }

        func load() throws -> OAuthToken? { try base.load() }
        func save(_ token: OAuthToken?) throws { try base.save(token) }
        var coordinator: (any TokenStoreCoordinator)? { held }
    }

    struct HoldingCoordinator: TokenStoreCoordinator {
        let base: PostgresTokenCoordinator
        let restartFile: String?

        nonisolated(nonsending) func currentGeneration() async throws -> UInt64? {
            try await base.currentGeneration()
        }

        nonisolated(nonsending) func read() async throws -> StoredToken { try await base.read() }

        nonisolated(nonsending) func write(_ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?)
            async throws -> UInt64?
        {
            if change == .refreshed, let restartFile, unlink(restartFile) == 0 {
                CrossProcessChild.say("WRITING " + base.key)
                await Input.shared.wait(for: "RESUME")
            }
            return try await base.write(token, change: change, ifGeneration: expected)
        }

        func acquireLease(expiringAfter duration: TimeInterval, waitingAtMost timeout: TimeInterval) async throws
            -> any TokenLease
        {
            try await base.acquireLease(expiringAfter: duration, waitingAtMost: timeout)
        }
    }
#endif
