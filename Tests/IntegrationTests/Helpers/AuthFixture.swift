import Courier
import CourierTestServer
import CourierTestServerTargets
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A running server, a signed-in session stored in a file, and a refreshable provider.
struct AuthFixture {
    let server: TestServer
    let session: AuthSession
    let provider: RefreshableProvider<ServerAPI>
    let storeURL: URL
    let tokenProvider = Provider<TokenEndpoint>()

    /// - Parameters:
    ///   - signedIn: sign in with a token the server issued (lifetime `tokenLifetime`).
    ///   - clockOffset: seconds added to the session's clock, to make a token look older.
    ///   - abandonRefreshAfter: the session's, when given (a test that holds a refresh at the
    ///     server for as long as it needs).
    ///   - tokenRequestTimeout: the token requests' `timeoutIntervalForRequest`, when given;
    ///     otherwise URLSession's 60 s.
    ///   - refreshGate: when given, each refresh waits at it before it calls the token
    ///     endpoint, so a test can hold a refresh in flight as long as it needs
    ///     (`refreshGate.waitForWaiting(1)` says a refresh has started).
    static func make(
        tokenLifetime: TimeInterval? = 3600,
        signedIn: Bool = true,
        acquire: Bool = false,
        refreshPolicy: RefreshPolicy = .default,
        refreshWindow: RefreshWindow? = RefreshWindow(),
        refreshTimeout: TimeInterval = testRefreshTimeout,
        abandonRefreshAfter: TimeInterval? = nil,
        tokenRequestTimeout: TimeInterval? = nil,
        authPlugin: ((AuthSession) -> AuthPlugin)? = nil,
        plugins: [any PluginType] = [],
        now: (@Sendable () -> Date)? = nil,
        refreshGate: CourierTesting.Gate? = nil
    ) async throws -> AuthFixture {
        let server = try await TestServer.start(tokenLifetime: tokenLifetime)
        let storeURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-it-\(UUID().uuidString)/token.json")
        let tokenProvider: Provider<TokenEndpoint>
        if let tokenRequestTimeout {
            let configuration = URLSessionTransport.defaultConfiguration()
            configuration.timeoutIntervalForRequest = tokenRequestTimeout
            tokenProvider = Provider(transport: URLSessionTransport(configuration: configuration))
        } else {
            tokenProvider = Provider()
        }
        let base = server.baseURL
        var acquireClosure: AuthSession.AcquireClosure?
        if acquire {
            acquireClosure = { @Sendable in
                try OAuthToken(
                    response: await tokenProvider.request(TokenEndpoint(base: base, grant: .clientCredentials)))
            }
        }
        let session = AuthSession(
            store: FileTokenStore(url: storeURL),
            refresh: { token in
                try await refreshGate?.wait()
                return try OAuthToken(
                    response: await tokenProvider.request(
                        TokenEndpoint(base: base, grant: .refresh(token.refreshToken ?? ""))))
            },
            acquire: acquireClosure,
            now: now ?? { Date() },
            refreshWindow: refreshWindow,
            refreshTimeout: refreshTimeout,
            abandonRefreshAfter: abandonRefreshAfter)
        if signedIn {
            let response = try await server.issueToken(lifetime: tokenLifetime)
            try await session.signIn(OAuthToken(tokenResponse: response, receivedAt: Date()))
        }
        let provider = RefreshableProvider<ServerAPI>(
            auth: session, refreshPolicy: refreshPolicy, authPlugin: authPlugin?(session), plugins: plugins)
        return AuthFixture(server: server, session: session, provider: provider, storeURL: storeURL)
    }

    func api(_ path: String, method: HTTPMethod = .get, task: RequestTask = .requestPlain) -> ServerAPI {
        ServerAPI(server, path, method: method, task: task)
    }

    /// The token in the store's file, read straight from disk.
    func storedToken() throws -> OAuthToken? {
        try FileTokenStore(url: storeURL).load()
    }

    func cleanUp() {
        server.stop()
        try? FileManager.default.removeItem(at: storeURL.deletingLastPathComponent())
    }
}

/// What a protected route answers.
struct Protected: Decodable {
    let ok: Bool
    let generation: Int
}

/// Holds every request at `prepare` until `count` of them have arrived, so that a burst of
/// requests all carry the same (stale) token.
actor ArrivalBarrier {
    private let count: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        self.count = count
    }

    func arrive() async {
        arrived += 1
        if arrived >= count {
            let all = waiting
            waiting.removeAll()
            for continuation in all { continuation.resume() }
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// Runs after the signing plugin: the first `gate.count` requests wait at the gate.
struct GatePlugin: PluginType {
    let gate: ArrivalBarrier
    let passes: CallCounter

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        // Only first attempts wait; replays pass straight through.
        if passes.increment() <= gate.countValue { await gate.arrive() }
        return request
    }
}

extension ArrivalBarrier {
    nonisolated var countValue: Int { count }
}

extension GatePlugin {
    init(count: Int) {
        self.init(gate: ArrivalBarrier(count: count), passes: CallCounter())
    }
}

/// Records every request as it is handed to the transport.
final class SentLog: PluginType, Sendable {
    private let requests = LockIsolated<[URLRequest]>([])

    func willSend(_ request: URLRequest, target: any TargetType) {
        requests.withValue { $0.append(request) }
    }

    var all: [URLRequest] { requests.value }
}
