import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `insufficient_scope` (RFC 6750 §3.1) is a step-up signal: never a refresh, never a logout.
@Suite("Insufficient scope", .timeLimit(.minutes(20)))
struct InsufficientScopeTests {
    struct API: TargetType {
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "posts" }
        var method: HTTPMethod { .post }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    @Test(
        "a 401 with insufficient_scope is returned with the scopes asked for; no refresh, the session stays",
        arguments: [401, 403])
    func noRefresh(status: Int) async throws {
        let transport = ScriptedTransport()
        transport.enqueue(
            .json(
                #"{"error":"insufficient_scope"}"#, statusCode: status,
                headers: ["WWW-Authenticate": #"Bearer error="insufficient_scope", scope="read write""#]),
            for: .post("/posts"))
        let refreshes = CallCounter()
        let session = AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: "at", refreshToken: "rt", expiresAt: Date() + 3600)),
            refresh: { token in
                refreshes.increment()
                return token
            }, refreshTimeout: 60)
        let provider = RefreshableProvider<API>(auth: session, transport: transport)
        let response = try await provider.request(API())
        #expect(response.statusCode == status)
        #expect(response.insufficientScope?.scopes == ["read", "write"])
        #expect(refreshes.value == 0)
        #expect(transport.requestCount == 1)
        #expect(try await session.validToken().accessToken == "at")
    }

    @Test("the signal is read from Bearer or DPoP challenges only, and only on 401 or 403")
    func parsing() {
        func response(_ status: Int, _ header: String) -> Response {
            let url = URL(string: "https://api.example.com/x")!
            return Response(
                statusCode: status, data: Data(), request: URLRequest(url: url),
                response: HTTPURLResponse(
                    url: url, statusCode: status, httpVersion: nil, headerFields: ["WWW-Authenticate": header]))
        }
        #expect(
            InsufficientScope(response: response(403, #"DPoP error="insufficient_scope", scope="admin""#))?.scopes == [
                "admin"
            ])
        #expect(InsufficientScope(response: response(403, #"Bearer error="insufficient_scope""#))?.scopes == [])
        #expect(InsufficientScope(response: response(400, #"Bearer error="insufficient_scope""#)) == nil)
        #expect(InsufficientScope(response: response(401, #"Bearer error="invalid_token""#)) == nil)
        #expect(InsufficientScope(response: response(401, #"Basic error="insufficient_scope""#)) == nil)
        let signal = InsufficientScope(response: response(403, #"Bearer error="insufficient_scope", scope="write""#))
        #expect(
            CourierError.statusCode(response(403, #"Bearer error="insufficient_scope", scope="write""#))
                .insufficientScope == signal)
    }
}
