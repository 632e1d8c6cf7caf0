import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Authorization code with PKCE against authlib, the test playing the browser: it follows the
/// authorization redirect over plain HTTP (the server's consent approves at once) to the
/// loopback listener.
@Suite(
    "Authorization code against authlib", .enabled(if: OAuthTestServer.isAvailable, OAuthTestServer.unavailableReason),
    .timeLimit(.minutes(20)))
struct AuthorizationCodeServerTests {
    /// A browser's GET: follows the authorization endpoint's 302 to wherever it points.
    struct Browser: TargetType {
        let baseURL: URL
        var path: String { "" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    struct MCP: TargetType {
        let baseURL: URL
        var path: String { "" }
        var method: HTTPMethod { .post }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    struct Granted: Decodable {
        let user: String
        let scope: String
        let resource: String?
    }

    func client(_ server: OAuthTestServer, id: String = "cli", authentication: OAuthClientAuthentication = .none)
        async throws -> OAuthClient
    {
        OAuthClient(
            metadata: try await OAuthDiscovery().authorizationServer(issuer: server.issuer), clientID: id,
            authentication: authentication)
    }

    @Test("a person signs in: PKCE, state, iss and the resource indicator, then the token opens the resource")
    func signsIn() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        let client = try await client(server)
        let page = LockIsolated("")
        let token = try await client.authorizeWithLoopback(scopes: ["read"], resources: [server.resource]) { url in
            let answer = try await Provider<Browser>().request(Browser(baseURL: url)).filterSuccessfulStatusCodes()
            page.setValue(String(decoding: answer.data, as: UTF8.self))
        }
        #expect(page.value.contains("You may close this tab"))
        #expect(token.refreshToken != nil)
        let provider = Provider<MCP>(plugins: [BearerPlugin(token: token.accessToken)])
        let granted = try await provider.request(MCP(baseURL: server.resource), as: Granted.self)
        #expect(granted.user == "ada")
        #expect(granted.scope == "read")
        #expect(granted.resource == server.resource.absoluteString)
    }

    @Test("a code presented with another request's PKCE verifier is refused by the server with invalid_grant")
    func wrongVerifier() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        let client = try await client(server)
        let listener = try LoopbackRedirectListener()
        let first = try await client.authorizationRequest(redirectURI: listener.redirectURI, scopes: ["read"])
        let second = try await client.authorizationRequest(redirectURI: listener.redirectURI, scopes: ["read"])
        let waiting = Task { try await listener.callback(for: first, timeout: 120) }
        _ = try await Provider<Browser>().request(Browser(baseURL: first.url))
        let callback = try await waiting.value
        // The first request's code, answered as if to the second: every client-side check passes,
        // and only the verifier is wrong.
        var components = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false))
        components.queryItems = components.queryItems?.map {
            $0.name == "state" ? URLQueryItem(name: "state", value: second.state) : $0
        }
        let error = await #expect(throws: OAuthError.self) {
            try await client.exchange(callback: try #require(components.url), for: second)
        }
        guard case .tokenRequestFailed(_, let courierError) = error else {
            Issue.record("expected tokenRequestFailed, got \(String(describing: error))")
            return
        }
        #expect(courierError.response?.statusCode == 400)
        let body = String(decoding: courierError.response?.data ?? Data(), as: UTF8.self)
        #expect(body.contains("invalid_grant"))
    }

    @Test("an answer with another iss is refused and its code never reaches the token endpoint")
    func wrongIssuer() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        try await server.configure(["response_iss": "https://impostor.example.com"])
        let client = try await client(server)
        let error = await #expect(throws: OAuthError.self) {
            try await client.authorizeWithLoopback(scopes: ["read"]) { url in
                _ = try await Provider<Browser>().request(Browser(baseURL: url))
            }
        }
        guard case .issuerMismatch(_, let found) = error else {
            Issue.record("expected issuerMismatch, got \(String(describing: error))")
            return
        }
        #expect(found == "https://impostor.example.com")
        #expect(try await server.counters()["POST /token"] == nil)
    }

    @Test("an answer with another state is refused by the listener, which keeps waiting for the real one")
    func wrongState() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        try await server.configure(["response_state": "forged"])
        let client = try await client(server)
        let listener = try LoopbackRedirectListener()
        let request = try await client.authorizationRequest(redirectURI: listener.redirectURI, scopes: ["read"])
        let waiting = Task { try await listener.callback(for: request, timeout: 120) }
        let answer = try await Provider<Browser>().request(Browser(baseURL: request.url))
        #expect(answer.statusCode == 400)
        #expect(String(decoding: answer.data, as: UTF8.self).contains("not the one the application is waiting for"))
        waiting.cancel()
        let result = await waiting.result
        guard case .failure(let failure) = result, case .cancelled? = failure as? OAuthError else {
            Issue.record("expected the wait to end only by cancellation, got \(result)")
            return
        }
        #expect(try await server.counters()["POST /token"] == nil)
    }
}

/// Signs with a fixed bearer token: what the test does with the token it got.
struct BearerPlugin: PluginType {
    let token: String
    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }
}
