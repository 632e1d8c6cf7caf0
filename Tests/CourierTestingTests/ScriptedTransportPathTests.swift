import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Routes compare paths segment by segment, as the server sees them, and an unanswered request
/// points out the scripted route that only looks like it.
@Suite("ScriptedTransport paths", .timeLimit(.minutes(20)))
struct ScriptedTransportPathTests {
    /// A Django-style token endpoint, whose path ends in "/".
    enum DjangoAPI: TargetType {
        case token
        case tokenWithoutSlash
        var baseURL: URL { URL(string: "http://127.0.0.1:8000")! }
        var path: String { self == .token ? "o/token/" : "o/token" }
        var method: HTTPMethod { .post }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    static func request(_ url: String, method: String = "GET") -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        return request
    }

    @Test("a route ending in / matches a request path ending in / (URL.path drops it; it failed before)")
    func trailingSlashMatches() async throws {
        let transport = ScriptedTransport()
        transport.enqueue(.json(#"{"access_token":"a"}"#), for: .post("/o/token/"))
        let provider = Provider<DjangoAPI>.scripted(transport)

        #expect(try await provider.request(.token).statusCode == 200)
        #expect(transport.pendingReplyCount == 0)
    }

    @Test("a trailing / is a segment: /o/token and /o/token/ are different routes")
    func trailingSlashIsASegment() {
        let withSlash = Self.request("http://127.0.0.1:8000/api/o/token/", method: "POST")
        let without = Self.request("http://127.0.0.1:8000/api/o/token", method: "POST")
        #expect(ScriptedTransport.Route.post("/o/token/").matches(withSlash))
        #expect(ScriptedTransport.Route.post("o/token/").matches(withSlash))
        #expect(!ScriptedTransport.Route.post("/o/token/").matches(without))
        #expect(!ScriptedTransport.Route.post("/o/token").matches(withSlash))
        #expect(ScriptedTransport.Route.post("/o/token").matches(without))
        #expect(ScriptedTransport.Route.post("/").matches(Self.request("http://h/", method: "POST")))
        #expect(ScriptedTransport.Route.post("/").matches(Self.request("http://h", method: "POST")))
        #expect(!ScriptedTransport.Route.post("/").matches(withSlash))
    }

    @Test("segments are percent-decoded one by one; case counts; a partial segment never matches")
    func segmentRules() {
        let spaced = Self.request("https://api.example.com/v1/files/a%20b")
        #expect(ScriptedTransport.Route.get("/files/a b").matches(spaced))
        #expect(ScriptedTransport.Route.get("/files/a%20b").matches(spaced))
        let encodedSlash = Self.request("https://api.example.com/files/a%2Fb")
        #expect(!ScriptedTransport.Route.get("/files/a/b").matches(encodedSlash))
        #expect(ScriptedTransport.Route.get("/files/a%2Fb").matches(encodedSlash))
        #expect(!ScriptedTransport.Route.get("/Files/a%2Fb").matches(encodedSlash))
        #expect(!ScriptedTransport.Route.get("/les/a%2Fb").matches(encodedSlash))
    }

    @Test("an unanswered request names the route that differs from it only by a trailing /")
    func nearMissTrailingSlash() async throws {
        let transport = ScriptedTransport()
        transport.enqueue(.status(200), for: .post("/o/token/"))
        let provider = Provider<DjangoAPI>.scripted(transport)

        let error = await #expect(throws: CourierError.self) { try await provider.request(.tokenWithoutSlash) }

        guard case .underlying(let unscripted as UnscriptedRequestError, nil) = error else {
            Issue.record("expected UnscriptedRequestError, got \(String(describing: error))")
            return
        }
        #expect(
            unscripted.nearMisses == [#"/o/token/ is not the request's path /o/token: they differ in a trailing "/""#])
        #expect(
            unscripted.description
                == #"ScriptedTransport has no reply for POST http://127.0.0.1:8000/o/token (scripted: POST /o/token/ (1 left)); near miss: /o/token/ is not the request's path /o/token: they differ in a trailing "/""#
        )
    }

    @Test("near misses: letter case, percent-encoding, another method; none for an unrelated path")
    func nearMissKinds() async {
        let request = Self.request("https://api.example.com/v1/files/a%2Fb", method: "POST")
        let cased = await Self.nearMiss(of: .post("/Files/a%2Fb"), for: request)
        #expect(cased == "/Files/a%2Fb is not the request's path /v1/files/a%2Fb: they differ in the case of letters")
        let encoded = await Self.nearMiss(of: .post("/files/a/b"), for: request)
        #expect(
            encoded
                == #"/files/a/b is not the request's path /v1/files/a%2Fb: they differ in percent-encoding (an encoded "/" belongs to its segment)"#
        )
        let method = await Self.nearMiss(of: .get("/files/a%2Fb"), for: request)
        #expect(method == "GET /files/a%2Fb has the request's path, but the request is a POST (not a GET)")
        #expect(await Self.nearMiss(of: .post("/users"), for: request) == nil)
        #expect(await Self.nearMiss(of: .matching("the CDN") { _ in false }, for: request) == nil)
    }

    /// The near miss that `request`, sent to a transport scripted with `route` only, reports.
    static func nearMiss(of route: ScriptedTransport.Route, for request: URLRequest) async -> String? {
        let transport = ScriptedTransport()
        transport.always(.status(200), for: route)
        do {
            _ = try await transport.send(TransportRequest(urlRequest: request))
            Issue.record("\(route) answered \(request)")
            return nil
        } catch let error as UnscriptedRequestError {
            #expect(error.nearMisses.count <= 1)
            return error.nearMisses.first
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }
}
