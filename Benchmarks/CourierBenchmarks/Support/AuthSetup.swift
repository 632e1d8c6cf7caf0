import Courier
import CourierTestServer
import CourierTestServerTargets
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session signed in against the test server, whose refresh closure calls the server's
/// token endpoint through a plain `Provider` (never the refreshable one), as an app does.
struct ServerSession {
    let server: TestServer
    let session: AuthSession
    /// Times the refresh closure ran, counted on the client.
    let refreshCalls: CallCounter
    let tokenProvider: Provider<TokenEndpoint>

    static func start(tokenLifetime: TimeInterval, refreshWindow: RefreshWindow? = nil) async throws -> ServerSession {
        let server = try await TestServer.start(tokenLifetime: tokenLifetime)
        let tokenProvider = Provider<TokenEndpoint>()
        let refreshCalls = CallCounter()
        let base = server.baseURL
        let session = AuthSession(
            store: InMemoryTokenStore(),
            refresh: { token in
                refreshCalls.increment()
                let response = try await tokenProvider.request(
                    TokenEndpoint(base: base, grant: .refresh(token.refreshToken ?? "")))
                return try OAuthToken(response: response)
            },
            refreshWindow: refreshWindow)
        let issued = try await server.issueToken(lifetime: tokenLifetime)
        try await session.signIn(OAuthToken(tokenResponse: issued, receivedAt: Date()))
        return ServerSession(server: server, session: session, refreshCalls: refreshCalls, tokenProvider: tokenProvider)
    }
}
