import Courier
import CourierTestServer
import CourierTestServerTargets
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A token endpoint and servers that behave as an attacker (or a broken deployment) would:
/// hostile lifetimes, a foreign origin's 401 after a redirect, a refresh slower than the
/// session's time-out with reuse detection on, a `Retry-After` in the year 9999.
@Suite("Hostile token servers", .timeLimit(.minutes(20)))
struct HostileTokenServerTests {
    @Test(
        "a hostile expires_in never locks the user out: one refresh, then the token is used until rejected",
        arguments: [#""nan""#, #""inf""#, #""-inf""#, "0", "-5", #""0""#, #""-1""#, "1e309", #""1e309""#, "1e300"])
    func hostileLifetime(expiresIn: String) async throws {
        let fixture = try await AuthFixture.make(refreshWindow: RefreshWindow(interval: 30, maximumAttempts: 3))
        defer { fixture.cleanUp() }
        try await fixture.server.configure(.init(expiresInOverride: .json(expiresIn)))
        _ = try await fixture.server.expireAccessTokens()
        try await fixture.server.resetCounters()
        for index in 0..<12 {
            let protected = try await fixture.provider.request(fixture.api("api/item/\(index)"), as: Protected.self)
            #expect(protected.ok)
        }
        let counters = try await fixture.server.counters()
        #expect(counters.refreshGrants == 1, "expires_in \(expiresIn): one refresh for the expired token, no more")
        #expect(counters.protected401 == 1)
        let token = try #require(await fixture.session.token)
        #expect(token.expiresAt == nil, "an unusable lifetime is unknown")
        #expect(token.description.contains("never expires"))
        #expect(try fixture.storedToken()?.expiresAt == nil)
    }

    @Test("a 401 from another origin after a redirect is returned as is: no refresh, no replay, no token sent there")
    func foreignUnauthorized() async throws {
        let fixture = try await AuthFixture.make()
        defer { fixture.cleanUp() }
        let foreign = try await TestServer.start()
        defer { foreign.stop() }
        try await fixture.server.resetCounters()
        try await foreign.resetCounters()
        let target = fixture.api(
            "redirect",
            task: .requestParameters(
                parameters: ["to": foreign.url("/api/foreign").absoluteString], encoding: URLEncoding.queryString))
        let response = try await fixture.provider.request(target)
        #expect(response.statusCode == 401)
        #expect(response.response?.url?.port == foreign.url("/").port)
        let home = try await fixture.server.counters()
        let there = try await foreign.counters()
        #expect(home.refreshGrants == 0, "the foreign 401 burned no refresh")
        #expect(there.protected401 == 1, "and was not replayed")
        #expect(there.authHeadersSeen == 0, "the token never left its origin")

        // A 401 after a same-origin redirect is the token's: refreshed once and replayed.
        _ = try await fixture.server.expireAccessTokens()
        let same = try await fixture.provider.request(fixture.api("redirect-same/api/same"), as: Protected.self)
        #expect(same.ok)
        #expect(try await fixture.server.counters().refreshGrants == 1)
    }

    @Test(
        "a refresh slower than refreshTimeout is never sent twice: later requests join it, the rotated token is kept")
    func lateRefreshWithReuseDetection() async throws {
        // The held refresh is never given up on, by the session or by URLSession, however long
        // a busy machine takes to release it: a refresh abandoned at the client and answered by
        // the server later is the used-refresh-token case, which ends the session.
        let fixture = try await AuthFixture.make(
            refreshTimeout: 1.5, abandonRefreshAfter: testRefreshTimeout, tokenRequestTimeout: testRefreshTimeout)
        defer { fixture.cleanUp() }
        // Rotation is on by default; a refresh token used twice revokes the whole family. The
        // server holds the refresh's answer until the test lets it go: it certainly outlives
        // the time-out, whatever the machine's load.
        let hold = UUID().uuidString
        try await fixture.server.configure(.init(refreshHold: hold, reuseDetection: true))
        _ = try await fixture.server.expireAccessTokens()
        try await fixture.server.resetCounters()
        let events = fixture.session.events
        let collected = Task { () -> [AuthEvent] in
            var seen: [AuthEvent] = []
            for await event in events {
                seen.append(event)
                if event == .refreshed || event == .sessionExpired { break }
            }
            return seen
        }

        // The first request outlives the session's 1.5 s refresh time-out (announced as
        // refreshFailed) and keeps waiting for the held refresh, within its own time-out.
        let announcements = fixture.session.events
        let first = Task { () -> Result<Int, CourierError> in
            do {
                return .success(
                    try await fixture.provider.request(fixture.api("api/first"), as: Protected.self).generation)
            } catch {
                return .failure(CourierError(error))
            }
        }
        for await event in announcements where event == .refreshFailed { break }
        // The refresh is still at the server. Requests now join it instead of sending the
        // same refresh token again: each gets the token it brings once the server answers (or,
        // on a machine so busy that their own 1.5 s run out first, the same time-out), never a
        // second refresh.
        try await fixture.server.waitForHeldRequest(hold)
        async let joined = withTaskGroup(of: Result<Int, CourierError>.self) { group in
            for index in 0..<5 {
                group.addTask {
                    do {
                        return .success(
                            try await fixture.provider.request(fixture.api("api/later/\(index)"), as: Protected.self)
                                .generation)
                    } catch {
                        return .failure(CourierError(error))
                    }
                }
            }
            return await group.reduce(into: [Result<Int, CourierError>]()) { $0.append($1) }
        }
        try await fixture.server.releaseHeldRequest(hold)
        let later = await joined
        let seen = await collected.value
        #expect(seen.first == .refreshFailed && seen.last == .refreshed, "\(seen)")
        let current = try #require(await fixture.session.token)
        let generation = try await fixture.provider.request(fixture.api("api/after"), as: Protected.self).generation
        for result in [await first.value] + later {
            switch result {
            case .success(let joined): #expect(joined == generation, "went out with the late refresh's token")
            case .failure(.authentication(.refreshFailed(let underlying))): #expect(underlying is RefreshTimeout)
            // A request whose own time-out passed while it waited (a machine that busy): its
            // time-out, never a second refresh.
            case .failure(.underlying(let underlying, _)) where (underlying as? URLError)?.code == .timedOut: break
            case .failure(let error): Issue.record("a later request failed with \(error)")
            }
        }

        let counters = try await fixture.server.counters()
        #expect(counters.refreshGrants == 1, "the refresh token was sent once")
        #expect(counters.refreshTokenReuses == 0)
        #expect(await fixture.session.isSessionExpired == false)
        let stored = try #require(try fixture.storedToken())
        #expect(stored.accessToken == current.accessToken, "the late answer is on disk")
        #expect(stored.refreshToken == current.refreshToken, "with the rotated refresh token")
    }

    @Test("the server's reuse detection: one refresh token sent twice at once revokes the whole family")
    func reuseDetectionRevokesFamily() async throws {
        // What the test above guards against, done on purpose with a plain provider.
        let fixture = try await AuthFixture.make()
        defer { fixture.cleanUp() }
        try await fixture.server.configure(.init(refreshDelay: 0.3, reuseDetection: true))
        let refreshToken = try #require(await fixture.session.token?.refreshToken)
        let endpoint = TokenEndpoint(base: fixture.server.baseURL, grant: .refresh(refreshToken))
        async let first = fixture.tokenProvider.request(endpoint)
        async let second = fixture.tokenProvider.request(endpoint)
        let codes = [try await first.statusCode, try await second.statusCode].sorted()
        #expect(codes == [200, 400])
        #expect(try await fixture.server.counters().refreshTokenReuses == 1)
        // Even the token the successful refresh issued is dead now: the user is logged out.
        let issued = try OAuthToken(response: try await first.statusCode == 200 ? first : second)
        var request = URLRequest(url: fixture.server.url("/api/check"))
        request.setValue("Bearer \(issued.accessToken)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.dataStartedOffPool(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 401)
    }

    @Test("a 503 with Retry-After in the year 9999 and maximumRetryAfter: .infinity waits until cancelled, sent once")
    func farFutureRetryAfter() async throws {
        let server = try await SharedServer.get()
        let backingOff = CallCounter()
        let provider = Provider<ServerAPI>(
            retryPolicy: RetryPolicy(
                maxRetries: 2, maximumRetryAfter: .infinity,
                sleep: { seconds in
                    backingOff.increment()
                    try await RetryPolicy.defaultSleep(seconds)
                }))
        let key = "year9999-\(UUID().uuidString)"
        let target = ServerAPI(
            server, "flaky/\(key)",
            task: .requestParameters(
                parameters: ["fail": "1", "status": "503", "retry_after": "Fri, 31 Dec 9999 23:59:59 GMT"],
                encoding: URLEncoding.queryString))
        let task = Task { try await provider.request(target) }
        // The first attempt was answered and the wait until the year 9999 has begun.
        try await backingOff.wait(forAtLeast: 1)
        task.cancel()
        // Only the cancel can end a wait until the year 9999 (the suite's time limit bounds it).
        let result = await task.result
        if case .failure(let error as CourierError) = result {
            #expect(error.isCancelled)
        } else {
            Issue.record("the request ended with \(result) instead of being cancelled")
        }
        // The server saw one attempt: the next one for the key is its second.
        struct Flaky: Decodable { let attempt: Int }
        let next = try await Provider<ServerAPI>().request(ServerAPI(server, "flaky/\(key)"), as: Flaky.self)
        #expect(next.attempt == 2)
    }
}
