import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Many requests rejected at once share one refresh, against the real server.
@Suite("Concurrent refresh against the test server", .serialized, .timeLimit(.minutes(20)))
struct ConcurrentRefreshTests {
    /// N requests that all carry the token the server has just expired.
    func burst(_ count: Int, rounds: Int) async throws {
        // Each round expires the token on purpose: no refresh window.
        let fixture = try await AuthFixture.make(refreshWindow: nil)
        defer { fixture.cleanUp() }
        for round in 0..<rounds {
            let gate = GatePlugin(count: count)
            let provider = RefreshableProvider<ServerAPI>(auth: fixture.session, plugins: [gate])
            try await fixture.server.expireAccessTokens()
            try await fixture.server.resetCounters()
            let generations = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<count {
                    group.addTask {
                        try await provider.request(fixture.api("api/items/\(index)"), as: Protected.self).generation
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            let counters = try await fixture.server.counters()
            #expect(
                counters.refreshGrants == 1, "round \(round): \(counters.refreshGrants) refreshes for \(count) requests"
            )
            #expect(counters.protected401 == count, "round \(round): every request was rejected once")
            #expect(counters.protectedOK == count, "round \(round): every request was replayed once and succeeded")
            #expect(generations.count == count)
            #expect(Set(generations) == [counters.generation], "every replay used the one new token")
        }
    }

    @Test("2 concurrent 401s → one refresh, each replayed once — 25 rounds")
    func two() async throws { try await burst(2, rounds: 25) }

    @Test("10 concurrent 401s → one refresh, each replayed once — 25 rounds")
    func ten() async throws { try await burst(10, rounds: 25) }

    @Test("1,000 concurrent 401s → one refresh, each replayed once — 3 rounds")
    func thousand() async throws { try await burst(1000, rounds: 3) }

    @Test("a 401 that arrives after another request already refreshed causes no second refresh")
    func lateRejection() async throws {
        let fixture = try await AuthFixture.make()
        defer { fixture.cleanUp() }
        let provider = RefreshableProvider<ServerAPI>(
            auth: fixture.session,
            plugins: [GatePlugin(count: 2), HoldUntilRefreshed(session: fixture.session, path: "api/slow")])
        try await fixture.server.expireAccessTokens()
        try await fixture.server.resetCounters()
        // Both requests are signed with the old token; the slow one leaves only after the
        // fast one has been rejected and the token refreshed.
        async let fast = provider.request(fixture.api("api/fast"), as: Protected.self)
        async let slow = provider.request(fixture.api("api/slow"), as: Protected.self)
        let (fastResult, slowResult) = try await (fast, slow)
        let counters = try await fixture.server.counters()
        #expect(counters.refreshGrants == 1)
        #expect(counters.protected401 == 2)
        #expect(counters.protectedOK == 2)
        #expect(fastResult.generation == slowResult.generation)
    }
}

/// Holds the first request for `path`, still signed with the old token, until the session's
/// token has changed. Its replay passes straight through.
struct HoldUntilRefreshed: PluginType {
    let session: AuthSession
    let path: String
    let attempts = CallCounter()

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        guard target.path == path, attempts.increment() == 1,
            let sent = request.value(forHTTPHeaderField: "Authorization")
        else { return request }
        // Subscribed before the token is read: a refresh that ends in between is not missed.
        let events = session.events
        if let current = await session.token, !sent.hasSuffix(current.accessToken) { return request }
        for await event in events where event == .refreshed { break }
        return request
    }
}
