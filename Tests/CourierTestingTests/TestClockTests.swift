import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("TestClock")
struct TestClockTests {
    @Test("stands still until moved")
    func moves() {
        let clock = TestClock(start: Date(timeIntervalSince1970: 100))
        let now = clock.now
        #expect(now() == Date(timeIntervalSince1970: 100))
        clock.advance(by: 30)
        #expect(now() == Date(timeIntervalSince1970: 130))
        clock.set(Date(timeIntervalSince1970: 5))
        #expect(clock.date == Date(timeIntervalSince1970: 5))
    }

    @Test("drives token expiry: AuthPlugin refreshes once the clock passes the leeway, not before")
    func drivesExpiry() async throws {
        let clock = TestClock()
        let issuer = TokenIssuer(clock: clock.now)
        let session = AuthSession(
            refresh: { token in await issuer.refresh(token) }, now: clock.now, refreshTimeout: testRefreshTimeout)
        try await session.signIn(
            OAuthToken(
                accessToken: "access-1", refreshToken: "refresh-1", expiresAt: clock.date + 3600,
                issuedAt: clock.date))
        let transport = ScriptedTransport()
        transport.always(.json(#"{"login":"ada"}"#), for: .get("/me"))
        transport.always(.status(204), for: .post("/login"))
        let provider = RefreshableProvider<KitAPI>(auth: session, transport: transport)

        _ = try await provider.request(.me)
        clock.advance(by: 3500)  // 100 s left: more than the 60 s leeway
        _ = try await provider.request(.me)
        clock.advance(by: 50)  // 50 s left: inside the leeway
        _ = try await provider.request(.me)
        _ = try await provider.request(.login)

        #expect(
            transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer access-1", "Bearer access-1", "Bearer access-2", nil,
            ])
        #expect(await issuer.refreshes == 1)
    }

    @Test("a scripted 401 makes RefreshableProvider refresh once and replay with the new token")
    func scriptedRejection() async throws {
        let clock = TestClock()
        let issuer = TokenIssuer(clock: clock.now)
        let session = AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: "access-1", refreshToken: "refresh-1")),
            refresh: { token in await issuer.refresh(token) }, now: clock.now, refreshTimeout: testRefreshTimeout)
        let transport = ScriptedTransport()
        transport.enqueue(.json(#"{"error":"invalid_token"}"#, statusCode: 401), for: .get("/me"))
        transport.always(.json(#"{"login":"ada"}"#), for: .get("/me"))
        let provider = RefreshableProvider<KitAPI>(auth: session, transport: transport)

        let response = try await provider.request(.me)

        #expect(response.statusCode == 200)
        #expect(
            transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer access-1", "Bearer access-2",
            ])
        #expect(await issuer.refreshes == 1)
    }
}
