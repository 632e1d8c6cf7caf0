import Courier
import CourierTestServer
import CourierTestServerTargets
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Detection, scoping, limits and first-token acquisition against the real server.
@Suite("Refresh policy, scoping and limits against the test server", .timeLimit(.minutes(20)))
struct RefreshPolicyTests {
    @Test("a backend that answers 200 with {\"status\": \"8\"} is refreshed and replayed")
    func businessCode() async throws {
        let policy = RefreshPolicy.custom { (try? $0.mapString(atKeyPath: "status")) == "8" }
        let fixture = try await AuthFixture.make(refreshPolicy: policy)
        defer { fixture.cleanUp() }
        try await fixture.server.expireAccessTokens()
        let response = try await fixture.provider.request(fixture.api("biz/orders"))
        #expect(try response.mapString(atKeyPath: "status") == "0")
        let counters = try await fixture.server.counters()
        #expect(counters.refreshGrants == 1)
        #expect(counters.protected401 == 1, "the status-8 answer")
    }

    @Test("a custom status set: only those codes trigger a refresh")
    func customStatusSet() async throws {
        let fixture = try await AuthFixture.make(refreshPolicy: .statusCodes([403, 419]))
        defer { fixture.cleanUp() }
        // 401 is not in the set: returned as is, no refresh.
        let unauthorized = try await fixture.provider.request(fixture.api("api/always-401/x"))
        #expect(unauthorized.statusCode == 401)
        #expect(try await fixture.server.counters().refreshGrants == 0)
        // 403 is: one refresh, one replay (still 403), returned.
        let forbidden = try await fixture.provider.request(fixture.api("status/403"))
        #expect(forbidden.statusCode == 403)
        #expect(try await fixture.server.counters().refreshGrants == 1)
    }

    @Test("a target whose authorizationType is nil is never signed and its 401 triggers no refresh")
    func unsignedTarget() async throws {
        let fixture = try await AuthFixture.make()
        defer { fixture.cleanUp() }
        var target = fixture.api("api/public")
        target.authorizationType = nil
        let response = try await fixture.provider.request(target)
        #expect(response.statusCode == 401)
        #expect(response.request?.value(forHTTPHeaderField: "Authorization") == nil)
        let counters = try await fixture.server.counters()
        #expect(counters.refreshGrants == 0)
        #expect(counters.authHeadersSeen == 0)
    }

    @Test("a 3-second token with a 60-second leeway is refreshed once, then used — not on every request")
    func shortLivedToken() async throws {
        // The session's clock is driven by the test; the tokens it gets claim to live 3 s
        // on that clock (the server keeps them valid, so only the client's decisions count).
        let clock = TestClock(start: Date())
        let server = try await TestServer.start()
        defer { server.stop() }
        let base = server.baseURL
        let tokenProvider = Provider<TokenEndpoint>()
        let threeSeconds: @Sendable (Data) throws -> OAuthToken = { body in
            var token = try OAuthToken(tokenResponse: body, receivedAt: clock.date)
            token.expiresAt = clock.date.addingTimeInterval(3)
            return token
        }
        let session = AuthSession(
            refresh: { token in
                let response = try await tokenProvider.request(
                    TokenEndpoint(base: base, grant: .refresh(token.refreshToken ?? "")))
                return try threeSeconds(response.data)
            },
            now: clock.now, refreshTimeout: testRefreshTimeout)
        try await session.signIn(threeSeconds(try await server.issueToken(lifetime: 3600)))
        let provider = RefreshableProvider<ServerAPI>(auth: session)
        try await server.resetCounters()
        func send(_ count: Int) async throws {
            for index in 0..<count {
                _ = try await provider.request(ServerAPI(server, "api/s/\(index)"), as: Protected.self)
            }
        }
        // A fresh 3 s token: the 60 s leeway is capped at 1.5 s, so no refresh yet.
        clock.advance(by: 1)
        try await send(10)
        #expect(try await server.counters().refreshGrants == 0)
        // 1.4 s left: refreshed once, and the new token is used for everything after.
        clock.advance(by: 0.6)
        try await send(10)
        clock.advance(by: 1)
        try await send(10)
        let counters = try await server.counters()
        #expect(counters.refreshGrants == 1)
        #expect(counters.protected401 == 0)
        #expect(counters.protectedOK == 30)
    }

    @Test("first-token acquisition under 50 concurrent first requests makes one call")
    func acquireOnce() async throws {
        let fixture = try await AuthFixture.make(signedIn: false, acquire: true)
        defer { fixture.cleanUp() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    let response = try await fixture.provider.request(fixture.api("api/a/\(index)"), as: Protected.self)
                    #expect(response.ok)
                }
            }
            try await group.waitForAll()
        }
        let counters = try await fixture.server.counters()
        #expect(counters.clientCredentialsGrants == 1)
        #expect(counters.protected401 == 0)
    }

    @Test("a server that rejects every fresh token ends in excessiveRefresh after the window's limit")
    func refreshWindow() async throws {
        // The session's clock stands still: all six attempts fall in one 30 s window, however
        // long a busy machine takes to send them.
        let clock = TestClock(start: Date())
        let fixture = try await AuthFixture.make(
            refreshWindow: RefreshWindow(interval: 30, maximumAttempts: 3), now: clock.now)
        defer { fixture.cleanUp() }
        var outcomes: [String] = []
        for _ in 0..<6 {
            do {
                let response = try await fixture.provider.request(fixture.api("api/always-401/w"))
                outcomes.append("\(response.statusCode)")
            } catch {
                if case .authentication(.excessiveRefresh) = error {
                    outcomes.append("excessive")
                } else {
                    outcomes.append("\(error)")
                }
            }
        }
        #expect(outcomes == ["401", "401", "401", "excessive", "excessive", "excessive"])
        #expect(try await fixture.server.counters().refreshGrants == 3)
    }

    @Test("host scoping: another host gets no Authorization, even through a redirect from the API host")
    func hostScoping() async throws {
        let fixture = try await AuthFixture.make(authPlugin: { AuthPlugin(auth: $0, allowedHosts: ["127.0.0.1"]) })
        defer { fixture.cleanUp() }
        let sameHost = try await fixture.provider.request(fixture.api("echo")).echo()
        #expect(sameHost.header("Authorization")?.hasPrefix("Bearer at-") == true)

        var otherHost = fixture.api("echo")
        otherHost.base = URL(string: "http://localhost:\(fixture.server.port)")!
        let other = try await fixture.provider.request(otherHost).echo()
        #expect(other.header("Authorization") == nil)

        let redirected = try await fixture.provider.request(
            ServerAPI(
                fixture.server, "redirect",
                task: .requestParameters(
                    parameters: ["to": "http://localhost:\(fixture.server.port)/echo"],
                    encoding: URLEncoding.queryString))
        ).echo()
        #expect(redirected.header("Host")?.hasPrefix("localhost") == true)
        #expect(redirected.header("Authorization") == nil)
    }

    @Test("a 401 with a JSON body, replayed 200 times in a row with progress tracking, never crashes")
    func repeatedRejections() async throws {
        let fixture = try await AuthFixture.make(refreshWindow: nil)
        defer { fixture.cleanUp() }
        for index in 0..<100 {
            let response = try await fixture.provider.request(fixture.api("api/always-401/\(index)"))
            #expect(response.statusCode == 401)
            #expect(try response.mapString(atKeyPath: "error") == "invalid_token")
        }
        for index in 0..<100 {
            var last: ProgressResponse?
            for try await step in fixture.provider.requestWithProgress(fixture.api("api/always-401/p\(index)")) {
                last = step
            }
            #expect(last?.completed == true)
            #expect(last?.progress == 1)
            #expect(last?.response?.statusCode == 401)
        }
        #expect(try await fixture.server.counters().refreshGrants == 200)
    }

    @Test("descriptions of tokens and errors contain no secret")
    func noSecretsInDescriptions() async throws {
        let fixture = try await AuthFixture.make()
        defer { fixture.cleanUp() }
        let token = try #require(await fixture.session.token)
        let secrets = [token.accessToken, try #require(token.refreshToken)]
        try await fixture.server.configure(.init(tokenFault: .invalidGrant, tokenFaultCount: 1))
        try await fixture.server.expireAccessTokens()
        var texts = [token.description, String(reflecting: token)]
        do {
            _ = try await fixture.provider.request(fixture.api("api/x"))
        } catch {
            texts += [error.description, error.localizedDescription, String(reflecting: error)]
        }
        #expect(texts.count == 5)
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "\(text)") }
        }
    }
}
