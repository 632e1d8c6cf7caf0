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
/// ``TestClock`` the test moves. The server's tokens live 10 minutes of wall time, and the
/// session is told they live 3 seconds of its clock: a loaded machine that takes seconds
/// between a refresh and the request after it must not turn the test into a race with the
/// server's clock.
@Suite("RefreshWindow against the test server", .timeLimit(.minutes(10)))
struct RefreshWindowServerTests {
    @Test("3-second tokens renewed proactively 40 times in 64 s of session time: no excessiveRefresh, no 401")
    func shortTokensNeverTrip() async throws {
        let server = try await TestServer.start(tokenLifetime: 600)
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
                threeSeconds(
                    try OAuthToken(
                        response: await tokenProvider.request(
                            TokenEndpoint(base: base, grant: .refresh(token.refreshToken ?? ""))),
                        receivedAt: clock.date), at: clock.date)
            },
            now: clock.now, refreshTimeout: testRefreshTimeout)
        try await session.signIn(
            threeSeconds(
                OAuthToken(tokenResponse: try await server.issueToken(lifetime: 600), receivedAt: clock.date),
                at: clock.date))
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

/// `token` as the session sees it: issued at `date`, expiring 3 seconds later on its clock.
private func threeSeconds(_ token: OAuthToken, at date: Date) -> OAuthToken {
    var token = token
    token.issuedAt = date
    token.expiresAt = date.addingTimeInterval(3)
    return token
}
