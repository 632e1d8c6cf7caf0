import Foundation
import Testing

@testable import Courier

/// The machine's side of a token the store refused: it is adopted and used, the store's
/// generation is remembered, and the next operation starts from it.
@Suite("AuthSession.StateMachine with a token the store refused")
struct AuthStateMachineUnstoredTests {
    typealias Machine = AuthSession.StateMachine

    let t0 = Date(timeIntervalSince1970: 1_000_000)

    func token(_ name: String) -> OAuthToken {
        OAuthToken(
            accessToken: "A\(name)", refreshToken: "R\(name)", expiresAt: t0.addingTimeInterval(3600), issuedAt: t0)
    }

    @Test("an unstored renewal answers the waiters, is reported, and the next refresh starts from it")
    func unstoredRenewal() throws {
        var m = Machine(token: token("0"), generation: 4, window: nil, canAcquire: false)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A0", now: t0).started)
        #expect(m.requestRefresh(waiter: 2, rejecting: "A0", now: t0) == .join)
        let finished = m.operationFinished(id, outcome: .renewedUnstored(token("1"), over: 4), now: t0)
        #expect(finished == .succeedUnstored([1, 2], token("1"), .refreshed))
        #expect(m.token == token("1"))
        #expect(m.unstored == Machine.Unstored(over: 4, change: .refreshed))
        #expect(m.generation == 4)
        #expect(m.requestRefresh(waiter: 3, rejecting: "A1", now: t0) == .start(2, .refresh(token("1"))))
    }

    @Test("written later, or overtaken by another session's write, or signed out: no longer unstored")
    func cleared() throws {
        var m = Machine(token: token("0"), generation: 4, window: nil, canAcquire: false)
        var id = try #require(m.requestRefresh(waiter: 1, rejecting: "A0", now: t0).started)
        _ = m.operationFinished(id, outcome: .renewedUnstored(token("1"), over: 4), now: t0)
        m.unstoredWritten(generation: 5)
        #expect(m.unstored == nil && m.generation == 5)

        id = try #require(m.requestRefresh(waiter: 2, rejecting: "A1", now: t0).started)
        _ = m.operationFinished(id, outcome: .renewedUnstored(token("2"), over: 5), now: t0)
        m.unstoredWritten(generation: nil)
        #expect(m.unstored == nil && m.generation == nil, "read again before the next request")

        id = try #require(m.requestRefresh(waiter: 3, rejecting: "A2", now: t0).started)
        _ = m.operationFinished(id, outcome: .renewedUnstored(token("3"), over: 6), now: t0)
        _ = m.signedOut()
        #expect(m.unstored == nil && m.token == nil)
    }
}
