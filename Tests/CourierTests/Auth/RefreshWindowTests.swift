import CourierTesting
import Foundation
import Testing

@testable import Courier

/// What ``RefreshWindow`` counts: refreshes after the server rejected a fresh token (the loop
/// it exists to stop), never a healthy session's scheduled refreshes. Time is a value the test
/// moves (the state machine's `now:`, a ``TestClock`` for the session), never a wall clock.
@Suite("RefreshWindow counts fresh tokens' rejections")
struct RefreshWindowTests {
    typealias Machine = AuthSession.StateMachine

    let t0 = Date(timeIntervalSince1970: 1_000_000)

    /// A token the server issued at `issuedAt`, living `lifetime` seconds.
    func token(_ name: String, lifetime: TimeInterval, at issuedAt: Date) -> OAuthToken {
        OAuthToken(
            accessToken: name, refreshToken: "R", expiresAt: issuedAt.addingTimeInterval(lifetime), issuedAt: issuedAt)
    }

    /// Runs `requests` requests, one every `spacing` seconds, each asking for a token valid for
    /// the default leeway (60 s, capped at half the lifetime) as ``AuthPlugin`` does; a refresh
    /// finishes at once with a token of `lifetime` seconds. Returns the refreshes started and
    /// every failure.
    func healthySession(lifetime: TimeInterval, requests: Int, spacing: TimeInterval) throws -> (
        refreshes: Int, failures: [Machine.Failure]
    ) {
        var m = Machine(
            token: token("T0", lifetime: lifetime, at: t0), generation: 1, window: RefreshWindow(), canAcquire: false)
        var refreshes = 0
        var failures: [Machine.Failure] = []
        for index in 0..<requests {
            let now = t0.addingTimeInterval(Double(index) * spacing)
            switch m.requestToken(waiter: UInt64(index), minimumValidity: 60, now: now) {
            case .answer(.failure(let failure)): failures.append(failure)
            case .answer(.success): break
            case .start(let id, _):
                refreshes += 1
                let new = token("T\(refreshes)", lifetime: lifetime, at: now)
                _ = m.operationFinished(id, outcome: .renewed(new, generation: UInt64(refreshes + 1)), now: now)
            case .join, .joinAndArmTimeout: Issue.record("nothing is in flight between requests")
            }
        }
        return (refreshes, failures)
    }

    @Test("3-second tokens refreshed proactively for ten minutes never reach the default limit", arguments: [3.0, 5.0])
    func shortTokensNeverTrip(lifetime: TimeInterval) throws {
        let run = try healthySession(lifetime: lifetime, requests: 6_000, spacing: 0.1)
        #expect(run.failures.isEmpty)
        // One refresh per half-lifetime: far more than 5 in any 30 s.
        #expect(run.refreshes >= Int(600 / (lifetime / 2)) - 1)
    }

    @Test("rejections near a token's expiry (its second half) never count: a healthy session's tokens expire")
    func lateRejectionsNeverCount() throws {
        var m = Machine(
            token: token("T0", lifetime: 3, at: t0), generation: 1, window: RefreshWindow(), canAcquire: false)
        var now = t0
        for round in 1...100 {
            // The server rejects each token 2.9 s into its 3-second life.
            now = now.addingTimeInterval(2.9)
            let action = m.requestRefresh(waiter: UInt64(round), rejecting: m.token?.accessToken, now: now)
            let id = try #require(action.started, "round \(round): \(action)")
            _ = m.operationFinished(
                id, outcome: .renewed(token("T\(round)", lifetime: 3, at: now), generation: UInt64(round + 1)), now: now
            )
        }
    }

    @Test("a server that rejects every token it just issued reaches the limit after maximumAttempts refreshes")
    func freshRejectionsTrip() throws {
        var m = Machine(
            token: token("T0", lifetime: 3, at: t0), generation: 1,
            window: RefreshWindow(interval: 30, maximumAttempts: 5), canAcquire: false)
        var now = t0
        for round in 1...5 {
            now = now.addingTimeInterval(0.05)
            let action = m.requestRefresh(waiter: UInt64(round), rejecting: m.token?.accessToken, now: now)
            let id = try #require(action.started)
            _ = m.operationFinished(
                id, outcome: .renewed(token("T\(round)", lifetime: 3, at: now), generation: UInt64(round + 1)), now: now
            )
        }
        now = now.addingTimeInterval(0.05)
        let refused = m.requestRefresh(waiter: 10, rejecting: m.token?.accessToken, now: now)
        #expect(refused == .answer(.failure(.excessiveRefresh)))
        // A request whose token was not rejected still goes out with it: the server decides.
        let current = try #require(m.token)
        #expect(
            m.requestToken(waiter: 11, minimumValidity: 60, now: now.addingTimeInterval(2))
                == .answer(.success(current)))
        // Once the first counted refresh is 30 s old, a refresh may start again.
        #expect(
            m.requestRefresh(waiter: 12, rejecting: current.accessToken, now: t0.addingTimeInterval(30.06)).started
                != nil)
    }

    @Test("a token whose lifetime is unknown counts as fresh when it is rejected")
    func unknownLifetimeCounts() throws {
        var m = Machine(
            token: OAuthToken(accessToken: "T0", refreshToken: "R"), generation: 1,
            window: RefreshWindow(interval: 30, maximumAttempts: 2), canAcquire: false)
        for round in 1...2 {
            let action = m.requestRefresh(waiter: UInt64(round), rejecting: m.token?.accessToken, now: t0)
            let id = try #require(action.started)
            _ = m.operationFinished(
                id,
                outcome: .renewed(
                    OAuthToken(accessToken: "T\(round)", refreshToken: "R"), generation: UInt64(round + 1)),
                now: t0)
        }
        #expect(m.requestRefresh(waiter: 3, rejecting: "T2", now: t0) == .answer(.failure(.excessiveRefresh)))
    }

    @Test("healthy refreshes between fresh rejections leave the count alone")
    func mixedSessionCountsOnlyRejections() throws {
        var m = Machine(
            token: token("T0", lifetime: 4, at: t0), generation: 1,
            window: RefreshWindow(interval: 30, maximumAttempts: 2), canAcquire: false)
        var now = t0
        var issued = 0
        func renew(_ action: Machine.RequestAction) throws {
            let id = try #require(action.started)
            issued += 1
            _ = m.operationFinished(
                id, outcome: .renewed(token("T\(issued)", lifetime: 4, at: now), generation: UInt64(issued + 1)),
                now: now)
        }
        // A fresh token rejected: counts (1 of 2).
        try renew(m.requestRefresh(waiter: 1, rejecting: "T0", now: now))
        // Ten proactive refreshes at half-life, 20 s in all (the first rejection is still in
        // the window): none counts.
        for round in 0..<10 {
            now = now.addingTimeInterval(2)
            try renew(m.requestToken(waiter: UInt64(100 + round), minimumValidity: 60, now: now))
        }
        // A second fresh rejection: counts (2 of 2); a third is refused.
        now = now.addingTimeInterval(0.1)
        try renew(m.requestRefresh(waiter: 2, rejecting: m.token?.accessToken, now: now))
        now = now.addingTimeInterval(0.1)
        #expect(
            m.requestRefresh(waiter: 3, rejecting: m.token?.accessToken, now: now)
                == .answer(.failure(.excessiveRefresh)))
    }

    @Test("an AuthSession on a TestClock with 3-second tokens refreshes 100 times in 150 s without excessiveRefresh")
    func sessionWithShortTokens() async throws {
        let clock = TestClock(start: t0)
        let refreshes = CallCounter()
        let session = AuthSession(
            store: InMemoryTokenStore(token("T0", lifetime: 3, at: t0)),
            refresh: { _ in
                let number = refreshes.increment()
                return OAuthToken(
                    accessToken: "T\(number)", refreshToken: "R", expiresAt: clock.date.addingTimeInterval(3),
                    issuedAt: clock.date)
            },
            now: clock.now, refreshTimeout: testRefreshTimeout)
        for _ in 0..<100 {
            clock.advance(by: 1.5)
            let token = try await session.validToken(minimumValidity: 60)
            #expect(!token.expires(within: 1.5, now: clock.date))
        }
        #expect(refreshes.value == 100)
    }

    @Test("the error names the limit and the refreshWindow: parameter")
    func errorNamesTheLimit() {
        let text = AuthenticationError.excessiveRefresh.description
        #expect(text.contains("refreshWindow:"))
        #expect(text.contains("RefreshWindow(interval: 30, maximumAttempts: 5)"))
        #expect(text.contains("just issued"))
    }
}
