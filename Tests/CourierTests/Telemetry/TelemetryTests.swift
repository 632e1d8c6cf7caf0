import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a telemetry adapter is handed: a span per attempt and a duration sample per attempt,
/// named and attributed as OpenTelemetry's HTTP client conventions say, and a `traceparent`
/// that stays with the target's own origin.
@Suite("Telemetry: one span per attempt, OpenTelemetry's names, trace context kept at its origin")
struct TelemetryTests {
    enum API: TargetType, AccessTokenAuthorizable, Equatable {
        case user(name: String)
        case items
        case login
        case elsewhere

        var baseURL: URL { URL(string: "https://api.example.com/v1")! }
        var path: String {
            switch self {
            case .user(let name): "users/\(name)"
            case .items: "items"
            case .login: "login"
            case .elsewhere: "x"
            }
        }
        var method: HTTPMethod { self == .login ? .post : .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
        var authorizationType: AuthorizationType? { self == .login ? nil : .bearer }
        var route: String {
            switch self {
            case .user: "users/{name}"
            case .items: "items"
            case .login: "login"
            case .elsewhere: "elsewhere"
            }
        }
    }

    /// An enum target that leaves `route` to its default.
    enum Plain: TargetType {
        case zen
        case user(name: String)
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "x" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    @Test("the default route is the type and case name, never the path with its ids")
    func defaultRoute() {
        #expect(Plain.zen.route == "Plain.zen")
        #expect(Plain.user(name: "ada").route == "Plain.user")
        #expect(Plain.user(name: "bob").route == Plain.user(name: "ada").route)
    }

    /// An enum of plain values (its payloads are numbers), whose routes are remembered by value.
    enum Numbered: TargetType {
        case home
        case item(Int)
        case page(Int, size: Int8)
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "x" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    @Test(
        "routes of plain enum values, remembered or not, past the bound and from many tasks at once, are their case names"
    )
    func rememberedRoutes() async {
        await withTaskGroup(of: [String].self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var wrong: [String] = []
                    for number in 0..<1500 {
                        let value = number + worker
                        if Numbered.home.route != "Numbered.home" { wrong.append(Numbered.home.route) }
                        if Numbered.item(value).route != "Numbered.item" { wrong.append(Numbered.item(value).route) }
                        let page = Numbered.page(value, size: Int8(truncatingIfNeeded: value))
                        if page.route != "Numbered.page" { wrong.append(page.route) }
                    }
                    return wrong
                }
            }
            for await wrong in group {
                #expect(wrong.isEmpty, "\(wrong.prefix(3))")
            }
        }
    }

    @Test("a retried request is two spans: resend_count on the second, the 503 an error")
    func retriesAreSpans() async throws {
        let recorder = RecordingTelemetry()
        let transport = ScriptedTransport()
        transport.enqueue(.status(503), .json("{}"), for: .get("/v1/users/ada"))
        let provider = Provider<API>(
            transport: transport, retryPolicy: RetryPolicy(maxRetries: 1, random: { 0 }, sleep: { _ in }),
            plugins: [TelemetryPlugin(recorder)])
        _ = try await provider.request(.user(name: "ada"))
        let spans = recorder.ended
        try #require(spans.count == 2)
        #expect(spans.map(\.name) == ["GET users/{name}", "GET users/{name}"])
        #expect(spans[0].attributes[TelemetryKey.resendCount] == nil)
        #expect(spans[1].attributes[TelemetryKey.resendCount] == .int(1))
        #expect(spans[0].outcome?.attributes[TelemetryKey.statusCode] == .int(503))
        #expect(spans[0].outcome?.attributes[TelemetryKey.errorType] == .string("503"))
        #expect(spans[0].outcome?.isError == true)
        #expect(spans[1].outcome?.attributes[TelemetryKey.statusCode] == .int(200))
        #expect(spans[1].outcome?.attributes[TelemetryKey.errorType] == nil)
        #expect(spans[1].outcome?.isError == false)
        let attributes = spans[0].attributes
        #expect(attributes[TelemetryKey.method] == .string("GET"))
        #expect(attributes[TelemetryKey.serverAddress] == .string("api.example.com"))
        #expect(attributes[TelemetryKey.serverPort] == .int(443))
        #expect(attributes[TelemetryKey.urlFull] == .string("https://api.example.com/v1/users/ada"))
        #expect(attributes[TelemetryKey.urlTemplate] == .string("users/{name}"))
        #expect(recorder.durations.count == 2)
        #expect(recorder.durations.allSatisfy { $0.attributes[TelemetryKey.urlFull] == nil })
        #expect(recorder.durations.first?.attributes[TelemetryKey.statusCode] == .int(503))
    }

    @Test("a token replay is an attempt too: resend_count 1, the 401 an error")
    func replaysAreSpans() async throws {
        let recorder = RecordingTelemetry()
        let transport = ScriptedTransport()
        transport.enqueue(.status(401), .json("[]"), for: .get("/v1/items"))
        let session = AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: "old", refreshToken: "r", tokenType: "Bearer")),
            refresh: { _ in OAuthToken(accessToken: "new", refreshToken: "r2", tokenType: "Bearer") },
            refreshTimeout: testRefreshTimeout)
        let provider = RefreshableProvider<API>(
            auth: session, transport: transport, plugins: [TelemetryPlugin(recorder)])
        #expect(try await provider.request(.items).statusCode == 200)
        let spans = recorder.ended
        try #require(spans.count == 2)
        #expect(spans.map(\.name) == ["GET items", "GET items"])
        #expect(spans[0].outcome?.attributes[TelemetryKey.errorType] == .string("401"))
        #expect(spans[1].attributes[TelemetryKey.resendCount] == .int(1))
    }

    @Test("traceparent goes to signed targets at their own origin; never to a login target or another origin")
    func traceparentStaysAtItsOrigin() async throws {
        let transport = ScriptedTransport()
        transport.always(.json("{}"), for: .any)
        let elsewhere: Provider<API>.EndpointClosure = { target in
            let endpoint = Provider<API>.defaultEndpointMapping(for: target)
            guard target == .elsewhere else { return endpoint }
            return Endpoint(
                url: "https://other.example.net/x", sampleResponseClosure: { .networkResponse(200, Data()) },
                method: .get, task: .requestPlain, httpHeaderFields: nil)
        }
        for propagation in [TelemetryPlugin.Propagation.signedTargets, .allTargets, .none] {
            transport.reset()
            transport.always(.json("{}"), for: .any)
            let provider = Provider<API>(
                endpointClosure: elsewhere, transport: transport,
                plugins: [TelemetryPlugin(RecordingTelemetry(), propagation: propagation)])
            for target in [API.items, .login, .elsewhere] { _ = try await provider.request(target) }
            let sent = transport.requests.map { $0.value(forHTTPHeaderField: "traceparent") }
            switch propagation {
            case .signedTargets: #expect(sent.map { $0 != nil } == [true, false, false])
            case .allTargets: #expect(sent.map { $0 != nil } == [true, true, false])
            case .none: #expect(sent.allSatisfy { $0 == nil })
            }
            if propagation != .none {
                #expect(sent[0]?.hasPrefix("00-") == true)
            }
        }
    }

    @Test("a redirect to another origin drops the trace context, as it drops credentials")
    func redirectDropsTraceContext() {
        for name in ["traceparent", "Traceparent", "tracestate", "baggage"] {
            #expect(CrossOriginRedirect.dropsHeader(named: name))
        }
    }

    @Test("url.full hides user info and secret query values")
    func fullURLIsRedacted() async throws {
        let recorder = RecordingTelemetry()
        let provider = Provider<API>(
            endpointClosure: { _ in
                Endpoint(
                    url: "https://ada:pw@api.example.com/v1/items?access_token=SECRET&page=2",
                    sampleResponseClosure: { .networkResponse(200, Data()) }, method: .get, task: .requestPlain,
                    httpHeaderFields: nil)
            }, stubClosure: Provider.immediatelyStub, plugins: [TelemetryPlugin(recorder)])
        _ = try await provider.request(.items)
        let full = try #require(recorder.ended.first?.attributes[TelemetryKey.urlFull]?.description)
        #expect(!full.contains("SECRET"))
        #expect(!full.contains("ada"))
        #expect(!full.contains("pw"))
        #expect(full.contains("page=2"))
    }

    @Test("url.full hides a JWT or a ;password= in the path too")
    func fullURLPathSecrets() async throws {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNlY3JldA"
        for url in ["https://api.example.com/v1/reset/\(jwt)", "https://api.example.com/v1/items;password=SECRET"] {
            let recorder = RecordingTelemetry()
            let provider = Provider<API>(
                endpointClosure: { _ in
                    Endpoint(
                        url: url, sampleResponseClosure: { .networkResponse(200, Data()) }, method: .get,
                        task: .requestPlain, httpHeaderFields: nil)
                }, stubClosure: Provider.immediatelyStub, plugins: [TelemetryPlugin(recorder)])
            _ = try await provider.request(.items)
            let full = try #require(recorder.ended.first?.attributes[TelemetryKey.urlFull]?.description)
            #expect(!full.contains("SECRET") && !full.contains("c2lnbmF0dXJlLXNlY3JldA"), "\(full)")
        }
    }

    @Test("a transport error names what failed; the transport's metrics reach the span and the response")
    func errorsAndMetrics() async throws {
        let recorder = RecordingTelemetry()
        let metrics = TransferMetrics(total: 0.25, bytesReceived: 12, reusedConnection: true, protocolVersion: "2")
        let answers = LockIsolated(0)
        let transport = ClosureTransport { request in
            let attempt = answers.withValue { count in
                count += 1
                return count
            }
            if attempt == 1 { throw URLError(.timedOut) }
            return Response(statusCode: 200, data: Data("{}".utf8), request: request.urlRequest, metrics: metrics)
        }
        let provider = Provider<API>(
            transport: transport, retryPolicy: RetryPolicy(maxRetries: 1, random: { 0 }, sleep: { _ in }),
            plugins: [TelemetryPlugin(recorder)])
        let response = try await provider.request(.items)
        #expect(response.metrics == metrics)
        let spans = recorder.ended
        try #require(spans.count == 2)
        #expect(spans[0].outcome?.attributes[TelemetryKey.errorType] == .string("timeout"))
        #expect(spans[0].outcome?.attributes[TelemetryKey.statusCode] == nil)
        #expect(spans[1].outcome?.metrics == metrics)
        #expect(spans[1].outcome?.attributes[TelemetryKey.protocolVersion] == .string("2"))
    }

    @Test("the metrics' one-line summary says what is known and nothing else")
    func metricsSummary() {
        let full = TransferMetrics(
            domainLookup: 0.001, connect: 0.002, secureConnection: 0.0105, timeToFirstByte: 0.02, total: 0.0254,
            bytesSent: 212, bytesReceived: 1300, reusedConnection: false, protocolVersion: "2", redirectCount: 1)
        #expect(
            full.summary
                == "total 25.4 ms (dns 1, connect 2, tls 10.5, first byte 20); sent 212 B, received 1.3 KB; h2, new connection, 1 redirect"
        )
        #expect(TransferMetrics().summary == "total unknown")
        #expect(TransferMetrics(total: .nan).summary == "total ? ms")
    }

    @Test("without a TelemetryPlugin nothing is recorded and no traceparent is sent")
    func offByDefault() async throws {
        let transport = ScriptedTransport()
        transport.always(.json("{}"), for: .any)
        _ = try await Provider<API>(transport: transport).request(.items)
        #expect(transport.lastRequest?.value(forHTTPHeaderField: "traceparent") == nil)
    }
}

/// Records every span it is asked to start and how each ended, and the duration samples.
final class RecordingTelemetry: RequestTelemetry {
    struct Span: Sendable {
        let name: String
        let attributes: [String: TelemetryValue]
        var outcome: TelemetryOutcome?
    }

    struct Sample: Sendable {
        let seconds: Double
        let attributes: [String: TelemetryValue]
    }

    private let spans = LockIsolated<[Span]>([])
    private let samples = LockIsolated<[Sample]>([])

    /// The spans started, with their outcome once ended.
    var ended: [Span] { spans.value }
    /// The duration samples.
    var durations: [Sample] { samples.value }

    func attemptStarted(_ attempt: TelemetryAttempt) -> any TelemetrySpan {
        let index = spans.withValue { spans in
            spans.append(Span(name: attempt.spanName, attributes: attempt.attributes))
            return spans.count - 1
        }
        return RecordedSpan(index: index, spans: spans)
    }

    func recordRequestDuration(_ seconds: Double, attributes: [String: TelemetryValue]) {
        samples.withValue { $0.append(Sample(seconds: seconds, attributes: attributes)) }
    }

    private struct RecordedSpan: TelemetrySpan {
        let index: Int
        let spans: LockIsolated<[Span]>

        var traceparent: String? {
            "00-" + String(repeating: "a", count: 32) + "-" + String(format: "%016x", index + 1) + "-01"
        }

        func end(_ outcome: TelemetryOutcome) {
            spans.withValue { $0[index].outcome = outcome }
        }
    }
}
