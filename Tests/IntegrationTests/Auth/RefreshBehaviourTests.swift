import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The refresh contract against the real token endpoint.
@Suite("Refresh behaviour against the test server", .timeLimit(.minutes(20)))
struct RefreshBehaviourTests {
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("requests started during a refresh wait and go out with the new token only")
    func requestsDuringRefreshWait() async throws {
        let log = SentLog()
        let refreshGate = Gate()
        // The test holds the refresh: it must not time out on a slow machine (not the claim).
        let fixture = try await AuthFixture.make(refreshTimeout: 3_600, plugins: [log], refreshGate: refreshGate)
        defer { fixture.cleanUp() }
        let oldToken = try #require(await fixture.session.token).accessToken
        try await fixture.server.expireAccessTokens()
        try await fixture.server.resetCounters()
        let trigger = Task { try await fixture.provider.request(fixture.api("api/trigger"), as: Protected.self) }
        // Once the trigger's refresh is under way (and held), start ten more requests, and wait
        // until all of them wait for it.
        try await refreshGate.waitForWaiting(1)
        let executor = SerialTaskExecutor()
        let tasks = (0..<10).map { index in
            Task(executorPreference: executor) {
                try await fixture.provider.request(fixture.api("api/during/\(index)"), as: Protected.self).generation
            }
        }
        try await executor.waitUntilIdle()
        let sentEarly = log.all.filter { $0.url?.path.contains("during") == true }
        #expect(sentEarly.isEmpty, "none left before the refresh")
        refreshGate.open()
        var during: [Int] = []
        for task in tasks { during.append(try await task.value) }
        let triggered = try await trigger.value
        let counters = try await fixture.server.counters()
        #expect(counters.refreshGrants == 1)
        #expect(counters.protected401 == 1, "only the trigger was rejected")
        #expect(Set(during) == [triggered.generation])
        let duringRequests = log.all.filter { $0.url?.path.contains("during") == true }
        #expect(duringRequests.count == 10)
        #expect(
            duringRequests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization")?.contains(oldToken) == false })
    }

    @Test("a token that expires within the leeway is refreshed before sending: the server sees no 401")
    func proactive() async throws {
        let fixture = try await AuthFixture.make()
        defer { fixture.cleanUp() }
        // The server's token is valid for an hour, but the stored one says 30 s are left.
        var token = try #require(await fixture.session.token)
        token.issuedAt = Date().addingTimeInterval(-3570)
        token.expiresAt = Date().addingTimeInterval(30)
        try await fixture.session.signIn(token)
        try await fixture.server.resetCounters()
        for index in 0..<5 {
            _ = try await fixture.provider.request(fixture.api("api/p/\(index)"), as: Protected.self)
        }
        let counters = try await fixture.server.counters()
        #expect(counters.refreshGrants == 1)
        #expect(counters.protected401 == 0)
        #expect(counters.protectedOK == 5)
    }

    @Test("a replay that is rejected again is returned as is: one refresh, no loop")
    func replayStillRejected() async throws {
        let fixture = try await AuthFixture.make()
        defer { fixture.cleanUp() }
        let response = try await fixture.provider.request(fixture.api("api/always-401/x"))
        #expect(response.statusCode == 401)
        let counters = try await fixture.server.counters()
        #expect(counters.refreshGrants == 1)
        #expect(counters.protected401 == 2)
    }

    @Test(
        "refresh endpoint answering 400 or 401 ends the session",
        arguments: [TestServerConfig.TokenFault.invalidGrant, .invalidClient])
    func sessionExpires(fault: TestServerConfig.TokenFault) async throws {
        let fixture = try await AuthFixture.make()
        defer { fixture.cleanUp() }
        let events = fixture.session.events
        let firstEvent = Task { await events.first { _ in true } }
        try await fixture.server.configure(.init(tokenFault: fault, tokenFaultCount: TestServerConfig.untilCleared))
        try await fixture.server.expireAccessTokens()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<5 {
                group.addTask {
                    await #expect {
                        try await fixture.provider.request(fixture.api("api/e/\(index)"))
                    } throws: { error in
                        if case .authentication(.sessionExpired) = error as? CourierError { return true }
                        return false
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await firstEvent.value == .sessionExpired)
        #expect(try fixture.storedToken() == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.storeURL.path))
        // Later requests fail fast, with no network call at all.
        let before = try await fixture.server.counters()
        for _ in 0..<3 {
            await #expect(throws: CourierError.self) { try await fixture.provider.request(fixture.api("api/after")) }
        }
        let after = try await fixture.server.counters()
        #expect(after.requestsTotal == before.requestsTotal)
        #expect(after.tokenRequests == before.tokenRequests)
    }

    @Test(
        "transient refresh failures keep the refresh token, and the next request refreshes and succeeds",
        arguments: [
            TestServerConfig.TokenFault.status500, .timeout(3), .drop, .malformed, .missingAccessToken,
        ])
    func transientFailures(fault: TestServerConfig.TokenFault) async throws {
        let fixture = try await AuthFixture.make(refreshTimeout: 1)
        defer { fixture.cleanUp() }
        let storedBefore = try #require(try fixture.storedToken())
        try await fixture.server.configure(.init(tokenFault: fault, tokenFaultCount: 1))
        try await fixture.server.expireAccessTokens()
        let events = fixture.session.events
        let failure = await #expect(throws: CourierError.self) {
            try await fixture.provider.request(fixture.api("api/t"))
        }
        guard case .authentication(.refreshFailed(let underlying))? = failure else {
            Issue.record("the request did not fail with refreshFailed: \(String(describing: failure))")
            return
        }
        let storedAfterFailure = try #require(try fixture.storedToken())
        #expect(storedAfterFailure.refreshToken == storedBefore.refreshToken)
        #expect(await fixture.session.isSessionExpired == false)
        // The next request must not join the failed refresh: wait until it is over. A refresh
        // that outlived `refreshTimeout` (the .timeout fault, or any on a very busy machine)
        // announced the time-out and stays in flight until its late answer, announced too.
        let announcements = underlying is RefreshTimeout ? 2 : 1
        var failures = 0
        for await event in events where event == .refreshFailed {
            failures += 1
            if failures == announcements { break }
        }
        // The next request refreshes and succeeds. On a machine so busy that this refresh, too,
        // outlives the 1 s time-out, its request fails with the time-out, the refresh goes on
        // and is adopted (announced as refreshed), and the request after it succeeds.
        var retried: Protected?
        do {
            retried = try await fixture.provider.request(fixture.api("api/t"), as: Protected.self)
        } catch {
            guard case .authentication(.refreshFailed(let late)) = error, late is RefreshTimeout else {
                throw error
            }
        }
        if retried == nil {
            for await event in events where event == .refreshed { break }
            retried = try await fixture.provider.request(fixture.api("api/t"), as: Protected.self)
        }
        #expect(retried?.ok == true)
        #expect(try fixture.storedToken()?.refreshToken != storedBefore.refreshToken, "rotated on success")
    }

    @Test("rotation: the new refresh token is on disk before the replay leaves")
    func rotationStoredBeforeReplay() async throws {
        let seenOnDisk = SeenOnDisk()
        let fixture = try await AuthFixture.make(plugins: [seenOnDisk])
        defer { fixture.cleanUp() }
        seenOnDisk.storeURL.setValue(fixture.storeURL)
        let original = try #require(try fixture.storedToken()?.refreshToken)
        try await fixture.server.expireAccessTokens()
        _ = try await fixture.provider.request(fixture.api("api/r"), as: Protected.self)
        let current = try #require(await fixture.session.token)
        #expect(current.refreshToken != original)
        let records = seenOnDisk.records
        #expect(records.count == 2)
        #expect(records.first?.refreshToken == original, "the first attempt saw the original file")
        #expect(records.last?.refreshToken == current.refreshToken, "the replay saw the rotated token on disk")
        #expect(records.last?.accessToken == current.accessToken)
    }

    @Test("a token response without refresh_token keeps the old refresh token")
    func missingRefreshTokenKept() async throws {
        let fixture = try await AuthFixture.make()
        defer { fixture.cleanUp() }
        try await fixture.server.configure(.init(includeRefreshToken: false))
        let original = try #require(try fixture.storedToken()?.refreshToken)
        try await fixture.server.expireAccessTokens()
        _ = try await fixture.provider.request(fixture.api("api/k"), as: Protected.self)
        #expect(try fixture.storedToken()?.refreshToken == original)
        #expect(await fixture.session.token?.refreshToken == original)
        // And it still works for the next refresh.
        try await fixture.server.expireAccessTokens()
        _ = try await fixture.provider.request(fixture.api("api/k"), as: Protected.self)
        #expect(try await fixture.server.counters().refreshSuccesses == 2)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("cancelling the request that triggered the refresh: the refresh completes, the others succeed")
    func cancelTrigger() async throws {
        let refreshGate = Gate()
        // The test holds the refresh: it must not time out on a slow machine (not the claim).
        let fixture = try await AuthFixture.make(refreshTimeout: 3_600, refreshGate: refreshGate)
        defer { fixture.cleanUp() }
        try await fixture.server.expireAccessTokens()
        let trigger = Task { try await fixture.provider.request(fixture.api("api/trigger")) }
        // The trigger's refresh is under way and held; five more requests wait for it.
        try await refreshGate.waitForWaiting(1)
        let executor = SerialTaskExecutor()
        let others = (0..<5).map { index in
            Task(executorPreference: executor) {
                try await fixture.provider.request(fixture.api("api/other/\(index)"), as: Protected.self)
            }
        }
        try await executor.waitUntilIdle()
        trigger.cancel()
        await #expect {
            try await trigger.value
        } throws: { error in
            (error as? CourierError)?.isCancelled == true
        }
        refreshGate.open()
        for other in others {
            #expect(try await other.value.ok)
        }
        let counters = try await fixture.server.counters()
        #expect(counters.refreshSuccesses == 1)
        #expect(counters.refreshGrants == 1)
    }
}

/// Records the token file's content each time a request is about to be sent.
final class SeenOnDisk: PluginType, Sendable {
    let storeURL = LockIsolated<URL?>(nil)
    private let seen = LockIsolated<[OAuthToken]>([])

    func willSend(_ request: URLRequest, target: any TargetType) {
        guard let url = storeURL.value, let token = try? FileTokenStore(url: url).load() else { return }
        seen.withValue { $0.append(token) }
    }

    var records: [OAuthToken] { seen.value }
}
