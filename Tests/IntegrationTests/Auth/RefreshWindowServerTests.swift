import Courier
import CourierTestServer
import CourierTestServerTargets
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``RefreshWindow`` against the real server: a healthy session with 3-second tokens, renewed
/// proactively through a token file, never reaches the limit. (A server that rejects every
/// fresh token reaching it is `RefreshPolicyTests.refreshWindow`.) The session's clock is a
/// ``TestClock`` the test moves; the server's tokens are each used at once, well within their
/// 3 seconds of wall time.
@Suite("RefreshWindow against the test server", .timeLimit(.minutes(10)))
struct RefreshWindowServerTests {
    @Test("3-second tokens renewed proactively 40 times in 64 s of session time: no excessiveRefresh, no 401")
    func shortTokensNeverTrip() async throws {
        let server = try await TestServer.start(tokenLifetime: 3)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-window-\(UUID())")
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        let clock = TestClock(start: Date())
        let tokenProvider = Provider<TokenEndpoint>()
        let base = server.baseURL
        let session = AuthSession(
            store: FileTokenStore(url: directory.appendingPathComponent("token.json")),
            refresh: { token in
                try OAuthToken(
                    response: await tokenProvider.request(
                        TokenEndpoint(base: base, grant: .refresh(token.refreshToken ?? ""))),
                    receivedAt: clock.date)
            },
            now: clock.now, refreshTimeout: testRefreshTimeout)
        try await session.signIn(
            OAuthToken(tokenResponse: try await server.issueToken(lifetime: 3), receivedAt: clock.date))
        let provider = RefreshableProvider<ServerAPI>(auth: session)
        for index in 0..<40 {
            // Past half the token's life: the signing plugin renews it before sending.
            clock.advance(by: 1.6)
            let response = try await provider.request(ServerAPI(server, "api/short/\(index)"))
            #expect(response.statusCode == 200, "request \(index)")
        }
        let counters = try await server.counters()
        #expect(counters.refreshGrants == 40)
        #expect(counters.protected401 == 0)
    }
}
