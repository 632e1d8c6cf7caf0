import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

/// Pushed authorization requests (RFC 9126) against the test server, whose PAR endpoint
/// authenticates the client through authlib.
@Suite(
    "Pushed authorization requests", .enabled(if: OAuthTestServer.isAvailable, OAuthTestServer.unavailableReason),
    .timeLimit(.minutes(20)))
struct PushedAuthorizationServerTests {
    @Test("a server that requires PAR gets the parameters pushed; the browser carries only client_id and request_uri")
    func pushed() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        try await server.configure(["require_par": true])
        let metadata = try await OAuthDiscovery().authorizationServer(issuer: server.issuer)
        #expect(metadata.requirePushedAuthorizationRequests)
        let client = OAuthClient(metadata: metadata, clientID: "web", authentication: .clientSecretBasic("web-secret"))
        let shown = LockIsolated<URL?>(nil)
        let token = try await client.authorizeWithLoopback(scopes: ["read"], resources: [server.resource]) { url in
            shown.setValue(url)
            // A refusal ends the sign-in at once rather than leaving the listener waiting.
            _ = try await Provider<AuthorizationCodeServerTests.Browser>().request(.init(baseURL: url))
                .filterSuccessfulStatusCodes()
        }
        #expect(token.refreshToken != nil)
        let names = URLComponents(url: try #require(shown.value), resolvingAgainstBaseURL: false)?.queryItems?.map(
            \.name)
        #expect(names == ["client_id", "request_uri"])
        let counters = try await server.counters()
        #expect(counters["par_pushed"] == 1)
        #expect(counters["par_used"] == 1)
    }

    @Test("a push with a wrong client secret is refused by the server, before any browser is involved")
    func wrongSecret() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        try await server.configure(["offer_par": true])
        let client = OAuthClient(
            metadata: try await OAuthDiscovery().authorizationServer(issuer: server.issuer), clientID: "web",
            authentication: .clientSecretBasic("wrong"))
        let error = await #expect(throws: OAuthError.self) {
            try await client.authorizationRequest(redirectURI: URL(string: "http://127.0.0.1:9/callback")!)
        }
        guard case .tokenRequestFailed(_, let courierError) = error else {
            Issue.record("expected the push to fail, got \(String(describing: error))")
            return
        }
        #expect(courierError.response?.statusCode == 401)
        #expect(!String(describing: error!).contains("wrong"))
    }
}
