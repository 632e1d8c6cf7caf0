import Courier
import CourierTestServer
import Foundation
import Testing

/// Services without a person: client credentials with both secret methods, verified by authlib.
@Suite(
    "Client credentials against authlib", .enabled(if: OAuthTestServer.isAvailable, OAuthTestServer.unavailableReason),
    .timeLimit(.minutes(20)))
struct ClientCredentialsServerTests {
    func client(_ server: OAuthTestServer, _ id: String, _ authentication: OAuthClientAuthentication) async throws
        -> OAuthClient
    {
        OAuthClient(
            metadata: try await OAuthDiscovery().authorizationServer(issuer: server.issuer), clientID: id,
            authentication: authentication)
    }

    @Test("client_secret_post and client_secret_basic each get a token; a session acquires one with no user action")
    func bothMethods() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        let post = try await client(server, "service", .clientSecretPost("service-secret"))
        let token = try await post.clientCredentials(scopes: ["read"])
        #expect(!token.accessToken.isEmpty)
        #expect(token.refreshToken == nil)
        let basic = try await client(server, "web", .clientSecretBasic("web-secret"))
        let session = AuthSession(clientCredentialsOf: basic, scopes: ["read"], refreshTimeout: 60)
        let acquired = try await session.validToken()
        #expect(acquired.accessToken != token.accessToken)
        let provider = Provider<AuthorizationCodeServerTests.MCP>(plugins: [BearerPlugin(token: acquired.accessToken)])
        #expect(try await provider.request(.init(baseURL: server.resource)).statusCode == 200)
    }

    @Test("a wrong secret is the server's invalid_client, and the error shows no secret")
    func wrongSecret() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        let client = try await client(server, "service", .clientSecretPost("not-the-secret"))
        let error = await #expect(throws: OAuthError.self) { try await client.clientCredentials() }
        guard case .tokenRequestFailed(let grant, let courierError) = error else {
            Issue.record("expected tokenRequestFailed, got \(String(describing: error))")
            return
        }
        #expect(grant == "client_credentials")
        #expect(courierError.response?.statusCode == 401)
        let text = String(describing: error!)
        #expect(!text.contains("not-the-secret"))
        #expect(text.contains("invalid_client"))
    }
}
