import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The around-the-send hook a user can write (``RequestInterceptor``): `next` called twice,
/// not at all, in order with Moya's four hooks, and around or instead of Courier's own
/// re-authentication stage.
@Suite("RequestInterceptor")
struct RequestInterceptorTests {
    /// Sends a request once more when the first answer is a 503.
    struct RetryOnceOn503: RequestInterceptor {
        let log: HookLog

        func intercept(_ request: URLRequest, context: RequestContext, next: Next) async throws(CourierError)
            -> Response
        {
            log.append("retry.before")
            let first = try await next(request, context)
            guard first.statusCode == 503, context.isIdempotent, context.isReplayable else { return first }
            var again = context
            again.retries += 1
            let second = try await next(request, again)
            log.append("retry.after")
            return second
        }
    }

    /// Answers from a cache of its own without sending anything.
    struct CannedAnswer: RequestInterceptor {
        func intercept(_ request: URLRequest, context: RequestContext, next: Next) async throws(CourierError)
            -> Response
        {
            Response(statusCode: 200, data: Data(#"{"cached":true}"#.utf8), request: request)
        }
    }

    /// Logs around `next`, and is a Moya plugin too.
    struct Around: RequestInterceptor {
        let name: String
        let log: HookLog

        func intercept(_ request: URLRequest, context: RequestContext, next: Next) async throws(CourierError)
            -> Response
        {
            log.append("\(name).before")
            defer { log.append("\(name).after") }
            return try await next(request, context)
        }

        func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
            log.append("\(name).prepare")
            return request
        }

        func willSend(_ request: URLRequest, target: any TargetType) {
            log.append("\(name).willSend")
        }

        func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
            log.append("\(name).didReceive")
        }

        func process(_ result: Result<Response, CourierError>, target: any TargetType) -> Result<
            Response, CourierError
        > {
            log.append("\(name).process")
            return result
        }
    }

    static func session(refreshes: CallCounter? = nil) -> AuthSession {
        AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: "old", refreshToken: "r")),
            refresh: { _ in
                _ = refreshes?.increment()
                return OAuthToken(accessToken: "new", refreshToken: "r2")
            },
            refreshTimeout: testRefreshTimeout)
    }

    @Test("an interceptor that calls next twice sends the request twice, every Moya hook running each time")
    func retriesOnceThroughNext() async throws {
        // Given a 503, then a 200
        let log = HookLog()
        let transport = ScriptedTransport()
        transport.enqueue(.status(503), .json("{}"), for: .get("/v1/users/1"))
        let provider = Provider<TestAPI>(
            transport: transport,
            plugins: [RetryOnceOn503(log: log), RecordingPlugin(name: "p", log: log)])

        // When
        let response = try await provider.request(.user(id: 1))

        // Then
        #expect(response.statusCode == 200)
        #expect(transport.requestCount == 2)
        #expect(
            log.all == [
                "retry.before",
                "p.prepare", "p.willSend", "p.didReceive", "p.process",
                "p.prepare", "p.willSend", "p.didReceive", "p.process",
                "retry.after",
            ])
    }

    @Test("an interceptor that does not call next answers the call: nothing is sent, no hook runs")
    func shortCircuits() async throws {
        let log = HookLog()
        let transport = ScriptedTransport()
        let provider = Provider<TestAPI>(
            transport: transport, plugins: [RecordingPlugin(name: "p", log: log), CannedAnswer()])
        let response = try await provider.request(.plain)
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.data, as: UTF8.self) == #"{"cached":true}"#)
        #expect(transport.requestCount == 0)
        #expect(log.all.isEmpty)
    }

    @Test("interceptors wrap in the order of plugins, around Moya's four hooks, which keep their order")
    func orderWithMoyaHooks() async throws {
        let log = HookLog()
        let transport = ScriptedTransport()
        transport.always(.json("{}"), for: .any)
        let provider = Provider<TestAPI>(
            transport: transport,
            plugins: [
                Around(name: "a", log: log), RecordingPlugin(name: "p", log: log), Around(name: "b", log: log),
            ])
        _ = try await provider.request(.plain)
        #expect(
            log.all == [
                "a.before", "b.before",
                "a.prepare", "p.prepare", "b.prepare",
                "a.willSend", "p.willSend", "b.willSend",
                "a.didReceive", "p.didReceive", "b.didReceive",
                "a.process", "p.process", "b.process",
                "b.after", "a.after",
            ])
    }

    @Test("the provider's retry policy is a stage outside the plugins' interceptors, which see its count")
    func retryPolicyIsAStage() async throws {
        let seen = LockIsolated<[Int]>([])
        struct Counting: RequestInterceptor {
            let seen: LockIsolated<[Int]>
            func intercept(_ request: URLRequest, context: RequestContext, next: Next) async throws(CourierError)
                -> Response
            {
                seen.withValue { $0.append(context.retries) }
                return try await next(request, context)
            }
        }
        let transport = ScriptedTransport()
        transport.enqueue(.status(503), .status(503), .json("{}"), for: .get("/v1/users/1"))
        let provider = Provider<TestAPI>(
            transport: transport, retryPolicy: RetryPolicy(maxRetries: 2, random: { 0 }, sleep: { _ in }),
            plugins: [Counting(seen: seen)])
        #expect(try await provider.request(.user(id: 1)).statusCode == 200)
        #expect(seen.value == [0, 1, 2])
    }

    @Test("the re-authentication stage signs before every plugin and wraps them: they see the signed replay")
    func reauthenticationWrapsPlugins() async throws {
        let log = HookLog()
        let seen = LockIsolated<[String]>([])
        struct Observer: RequestInterceptor {
            let seen: LockIsolated<[String]>
            func intercept(_ request: URLRequest, context: RequestContext, next: Next) async throws(CourierError)
                -> Response
            {
                let authorization = request.value(forHTTPHeaderField: "Authorization") ?? "none"
                let signedWith = context.credential?.token.accessToken ?? "none"
                let challenge = context.challenge.map { String($0.response.statusCode) } ?? "none"
                seen.withValue { $0.append("\(authorization) \(signedWith) \(challenge) \(context.replays)") }
                return try await next(request, context)
            }
        }
        let transport = ScriptedTransport()
        transport.enqueue(.status(401, headers: ["WWW-Authenticate": "Bearer"]), .json("{}"), for: .get("/v1"))
        let provider = RefreshableProvider<TestAPI>(
            auth: Self.session(), transport: transport,
            plugins: [Observer(seen: seen), RecordingPlugin(name: "p", log: log)])
        #expect(try await provider.request(.plain).statusCode == 200)
        #expect(seen.value == ["Bearer old old none 0", "Bearer new new 401 1"])
        #expect(log.all.filter { $0 == "p.prepare" }.count == 2)
        #expect(provider.plugins.first is AuthPlugin)
    }

    @Test("a user's interceptor wraps Courier's re-authentication stage on a plain provider")
    func wrapsTheSigningStage() async throws {
        struct Wrapper: RequestInterceptor {
            let inner: ReauthenticationInterceptor
            let log: HookLog
            func intercept(_ request: URLRequest, context: RequestContext, next: Next) async throws(CourierError)
                -> Response
            {
                log.append("wrapper.before")
                let response = try await inner.intercept(request, context: context) {
                    (request, context) async throws(CourierError) -> Response in
                    log.append("send \(request.value(forHTTPHeaderField: "Authorization") ?? "none")")
                    return try await next(request, context)
                }
                log.append("wrapper.after")
                return response
            }
        }
        let log = HookLog()
        let refreshes = CallCounter()
        let transport = ScriptedTransport()
        transport.enqueue(.status(401), .json("{}"), for: .get("/v1"))
        let session = Self.session(refreshes: refreshes)
        let provider = Provider<TestAPI>(
            transport: transport,
            plugins: [Wrapper(inner: ReauthenticationInterceptor(auth: session), log: log)])
        #expect(try await provider.request(.plain).statusCode == 200)
        #expect(log.all == ["wrapper.before", "send Bearer old", "send Bearer new", "wrapper.after"])
        #expect(refreshes.value == 1)
    }

    @Test("a user's own signing stage replaces Courier's: sign, refresh on 401 and resume, through next")
    func replacesTheSigningStage() async throws {
        /// Moya #1706's "async plugin that can refresh and resume a request", written by hand.
        struct MySigning: RequestInterceptor {
            let auth: AuthSession
            func intercept(_ request: URLRequest, context: RequestContext, next: Next) async throws(CourierError)
                -> Response
            {
                func signed(_ token: OAuthToken) -> URLRequest {
                    var request = request
                    request.setValue("Token \(token.accessToken)", forHTTPHeaderField: "Authorization")
                    return request
                }
                let token: OAuthToken
                do {
                    token = try await auth.validToken()
                } catch {
                    throw .authentication(error)
                }
                let response = try await next(signed(token), context)
                guard response.statusCode == 401 else { return response }
                let fresh: OAuthToken
                do {
                    fresh = try await auth.refresh(rejecting: token)
                } catch {
                    throw .authentication(error)
                }
                var replay = context
                replay.replays += 1
                return try await next(signed(fresh), replay)
            }
        }
        let transport = ScriptedTransport()
        transport.enqueue(.status(401), .json("{}"), for: .get("/v1"))
        let provider = Provider<TestAPI>(transport: transport, plugins: [MySigning(auth: Self.session())])
        #expect(try await provider.request(.plain).statusCode == 200)
        #expect(transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Token old", "Token new"])
    }
}
