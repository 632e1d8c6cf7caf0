import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

/// The built-in refresh (a session made from an `OAuthClient`, no refresh closure) against
/// authlib, which rotates refresh tokens and revokes the family when a used one comes back.
@Suite(
    "OAuth built-in refresh against authlib",
    .enabled(if: OAuthTestServer.isAvailable, OAuthTestServer.unavailableReason), .timeLimit(.minutes(20)))
struct OAuthRefreshServerTests {
    struct MCP: TargetType {
        let baseURL: URL
        var path: String { "" }
        var method: HTTPMethod { .post }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    /// A person's sign-in with the confidential client `web` (client_secret_basic).
    func signIn(_ server: OAuthTestServer) async throws -> (OAuthClient, OAuthToken) {
        let client = OAuthClient(
            metadata: try await OAuthDiscovery().authorizationServer(issuer: server.issuer), clientID: "web",
            authentication: .clientSecretBasic("web-secret"))
        let token = try await client.authorizeWithLoopback(scopes: ["read"], resources: [server.resource]) { url in
            _ = try await Provider<AuthorizationCodeServerTests.Browser>().request(.init(baseURL: url))
                .filterSuccessfulStatusCodes()
        }
        return (client, token)
    }

    @Test("three sessions on one token file: one refresh for the expiry, the rotated token stored, no reuse, no logout")
    func oneRefreshAcrossSessions() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        let (client, token) = try await signIn(server)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-oauth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("token.json")
        // The token as the sessions find it: past its expiry, so the first request refreshes.
        var expired = token
        expired.expiresAt = Date() - 10
        expired.issuedAt = Date() - 3610
        let sessions = (0..<3).map { _ in
            AuthSession(
                client: client, store: FileTokenStore(url: file), resources: [server.resource], refreshTimeout: 60)
        }
        try await sessions[0].signIn(expired)
        let ended = LockIsolated(0)
        let listeners = sessions.map { session in
            let events = session.events
            return Task {
                for await event in events where event == .sessionExpired { ended.withValue { $0 += 1 } }
            }
        }
        defer { listeners.forEach { $0.cancel() } }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for session in sessions {
                let provider = RefreshableProvider<MCP>(auth: session)
                for _ in 0..<10 {
                    group.addTask { try await provider.request(MCP(baseURL: server.resource)).statusCode }
                }
            }
            for try await status in group { #expect(status == 200) }
        }
        let counters = try await server.counters()
        #expect(counters["refresh_grants"] == 1)
        #expect(counters["refresh_token_reuses"] == nil)
        let stored = try #require(try FileTokenStore(url: file).load())
        #expect(stored.refreshToken != token.refreshToken)
        #expect(stored.accessToken != token.accessToken)
        #expect(ended.value == 0)
    }

    @Test("a refresh token the server refuses (invalid_grant) ends the session once, and the store is cleared")
    func invalidGrantEndsSession() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        let (client, token) = try await signIn(server)
        var forged = token
        forged.refreshToken = "rt-the-server-never-issued"
        forged.expiresAt = Date() - 10
        let store = InMemoryTokenStore(forged)
        let session = AuthSession(client: client, store: store, refreshTimeout: 60)
        await #expect(throws: AuthenticationError.sessionExpired) { try await session.validToken() }
        #expect(store.load() == nil)
        #expect(try await server.counters()["token_400"] == 1)
    }

    @Test("a network failure during the built-in refresh keeps the session and its refresh token")
    func networkFailureKeepsSession() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        let (signedIn, token) = try await signIn(server)
        // The same client, its token endpoint unreachable (nothing listens on port 1).
        let client = OAuthClient(
            metadata: AuthorizationServerMetadata(
                issuer: server.issuer, tokenEndpoint: URL(string: "http://127.0.0.1:1/token")!),
            clientID: signedIn.clientID, authentication: signedIn.authentication)
        var expired = token
        expired.expiresAt = Date() - 10
        let store = InMemoryTokenStore(expired)
        let session = AuthSession(client: client, store: store, refreshTimeout: 60)
        let error = await #expect(throws: AuthenticationError.self) { try await session.validToken() }
        guard case .refreshFailed = error else {
            Issue.record("expected refreshFailed, got \(String(describing: error))")
            return
        }
        #expect(store.load()?.refreshToken == token.refreshToken)
    }

    @Test("a 403 insufficient_scope from the resource is the typed step-up signal: no refresh, no logout")
    func insufficientScope() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        let (client, token) = try await signIn(server)
        let session = AuthSession(client: client, store: InMemoryTokenStore(token), refreshTimeout: 60)
        let provider = RefreshableProvider<MCP>(auth: session)
        let response = try await provider.request(MCP(baseURL: server.resource.appendingPathComponent("write")))
        #expect(response.statusCode == 403)
        #expect(response.insufficientScope?.scopes == ["read", "write"])
        #expect(response.insufficientScope?.resourceMetadata != nil)
        #expect(try await server.counters()["refresh_grants"] == nil)
        #expect(try await session.validToken().accessToken == token.accessToken)
    }
}
