import Foundation
import Testing

@testable import Courier

/// The refresh decisions, with no networking: every input and the action it must return.
@Suite("AuthSession.StateMachine")
struct AuthStateMachineTests {
    typealias Machine = AuthSession.StateMachine

    let t0 = Date(timeIntervalSince1970: 1_000_000)
    var fresh: OAuthToken {
        OAuthToken(accessToken: "A", refreshToken: "R1", expiresAt: t0.addingTimeInterval(3600), issuedAt: t0)
    }

    func machine(_ token: OAuthToken?, window: RefreshWindow? = nil, canAcquire: Bool = false) -> Machine {
        Machine(token: token, window: window, canAcquire: canAcquire)
    }

    @Test("a valid token is used at once, with nothing else to do")
    func validTokenUsed() {
        var m = machine(fresh)
        let action = m.requestToken(waiter: 1, minimumValidity: 60, now: t0)
        #expect(action == .answer(.success(fresh)))
        #expect(m.phase == .idle)
    }

    @Test("a token expiring within the leeway starts one refresh; later callers join it")
    func singleFlight() {
        var m = machine(fresh)
        let now = t0.addingTimeInterval(3590)
        let first = m.requestToken(waiter: 1, minimumValidity: 60, now: now)
        #expect(first == .start(1, .refresh(fresh)))
        for waiter in 2...100 {
            let joined = m.requestToken(waiter: UInt64(waiter), minimumValidity: 60, now: now)
            #expect(joined == .none)
        }
        let refresh = m.requestRefresh(waiter: 101, rejecting: "A", now: now)
        #expect(refresh == .none)
        guard case .busy(let inFlight) = m.phase else {
            Issue.record("not refreshing")
            return
        }
        #expect(inFlight.waiters == Array(1...101))
    }

    @Test("success persists first, then resumes every waiter with the new token and emits refreshed")
    func successOrder() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        _ = m.requestRefresh(waiter: 2, rejecting: "A", now: t0)
        let new = OAuthToken(accessToken: "B", refreshToken: "R2", expiresAt: t0.addingTimeInterval(7200), issuedAt: t0)
        let finished = m.operationFinished(id, outcome: .success(new))
        #expect(finished == .persist(new))
        #expect(m.token == fresh, "nothing is adopted before it is stored")
        let persisted = m.persisted(id, token: new, succeeded: true)
        #expect(persisted == .succeed([1, 2], new, .refreshed))
        #expect(m.token == new)
        #expect(m.phase == .idle)
    }

    @Test("a response without refresh_token keeps the old refresh token")
    func keepsRefreshToken() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        let new = OAuthToken(accessToken: "B", refreshToken: nil)
        let finished = m.operationFinished(id, outcome: .success(new))
        var expected = new
        expected.refreshToken = "R1"
        #expect(finished == .persist(expected))
    }

    @Test("a failed store write fails the waiters as transient and keeps the old token")
    func storeWriteFails() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        let new = OAuthToken(accessToken: "B", refreshToken: "R2")
        _ = m.operationFinished(id, outcome: .success(new))
        #expect(m.persisted(id, token: new, succeeded: false) == .fail([1]))
        #expect(m.token == fresh)
    }

    @Test("a 401 for a token that was already replaced is answered with the current token")
    func staleRejection() throws {
        var m = machine(fresh)
        #expect(m.requestRefresh(waiter: 1, rejecting: "OLD", now: t0) == .answer(.success(fresh)))
    }

    @Test("rejection ends the session: store cleared, event once, waiters and later requests fail fast")
    func rejection() throws {
        var m = machine(fresh, canAcquire: true)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        _ = m.requestToken(waiter: 2, minimumValidity: 0, now: t0)
        #expect(m.operationFinished(id, outcome: .rejected) == .expire([1, 2]))
        #expect(m.token == nil)
        for waiter in 3...5 {
            // Answered at once, with nothing to clear or emit again.
            #expect(
                m.requestToken(waiter: UInt64(waiter), minimumValidity: 0, now: t0)
                    == .answer(.failure(.sessionExpired)))
            #expect(m.requestRefresh(waiter: 9, rejecting: nil, now: t0) == .answer(.failure(.sessionExpired)))
        }
    }

    @Test("a transient failure keeps the token and the next request starts a new refresh")
    func transient() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        #expect(m.operationFinished(id, outcome: .transient) == .fail([1]))
        #expect(m.token == fresh)
        let next = m.requestRefresh(waiter: 2, rejecting: "A", now: t0)
        #expect(next == .start(id + 1, .refresh(fresh)))
    }

    @Test("a time-out fails the waiters but keeps the refresh in flight; later requests join it, its answer is adopted")
    func timeout() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        #expect(m.operationTimedOut(id) == .fail([1]))
        // A second time-out for the same round does nothing.
        #expect(m.operationTimedOut(id) == .none)
        // Later requests, whether their token was rejected or only expires soon, join the
        // refresh in flight: the same refresh token is never sent twice at once. The first
        // one to join starts a new time-out for its round.
        let joined = m.requestRefresh(waiter: 2, rejecting: "A", now: t0 + 100)
        #expect(joined == .armTimeout(id))
        #expect(m.requestToken(waiter: 3, minimumValidity: 7200, now: t0 + 100) == .none)
        let late = OAuthToken(accessToken: "LATE", refreshToken: "R2")
        #expect(m.operationFinished(id, outcome: .success(late)) == .persist(late))
        #expect(m.persisted(id, token: late, succeeded: true) == .succeed([2, 3], late, .refreshed))
        #expect(m.token == late)
        #expect(m.phase == .idle)

        // The second round's time-out fails only its own waiters; a transient failure then
        // frees the slot, and only then may a new refresh start.
        var other = machine(fresh)
        let first = try #require(other.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        _ = other.operationTimedOut(first)
        #expect(other.requestRefresh(waiter: 2, rejecting: "A", now: t0) == .armTimeout(first))
        #expect(other.operationTimedOut(first) == .fail([2]))
        #expect(other.operationFinished(first, outcome: .transient) == .fail([]))
        #expect(other.phase == .idle)
        let second = try #require(other.requestRefresh(waiter: 3, rejecting: "A", now: t0).started)
        #expect(second != first)
    }

    @Test("a late rejection after a time-out ends the session for everyone who joined")
    func lateRejection() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        _ = m.operationTimedOut(id)
        _ = m.requestToken(waiter: 2, minimumValidity: 0, now: t0)
        #expect(m.operationFinished(id, outcome: .rejected) == .expire([2]))
        #expect(m.phase == .expired)
    }

    @Test("sign-in during a refresh hands the new token to the waiters and ignores the refresh's answer")
    func signInDuringRefresh() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        let signed = OAuthToken(accessToken: "S", refreshToken: "RS")
        #expect(m.signedIn(signed) == .replace(.signedIn, waiters: [1], result: .success(signed), cancel: id))
        #expect(m.operationFinished(id, outcome: .success(OAuthToken(accessToken: "OLD-SESSION"))) == .none)
        #expect(m.operationFinished(id, outcome: .rejected) == .none)
        #expect(m.token == signed)
    }

    @Test("sign-out during a refresh fails the waiters and the old session never comes back")
    func signOutDuringRefresh() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        #expect(m.signedOut() == .replace(.signedOut, waiters: [1], result: .failure(.missingCredential), cancel: id))
        #expect(m.operationFinished(id, outcome: .success(OAuthToken(accessToken: "B"))) == .none)
        #expect(m.token == nil)
        #expect(m.requestToken(waiter: 2, minimumValidity: 0, now: t0) == .answer(.failure(.missingCredential)))
    }

    @Test("sign-in after expiry starts a new session whose expiry is reported again")
    func signInAfterExpiry() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        #expect(m.operationFinished(id, outcome: .rejected) == .expire([1]))
        #expect(m.signedIn(fresh) == .replace(.signedIn, waiters: [], result: .success(fresh), cancel: nil))
        #expect(m.requestToken(waiter: 2, minimumValidity: 0, now: t0) == .answer(.success(fresh)))
        let second = try #require(m.requestRefresh(waiter: 3, rejecting: "A", now: t0).started)
        #expect(m.operationFinished(second, outcome: .rejected) == .expire([3]))
    }

    @Test("no token: acquire once for all callers, or fail with missingCredential")
    func acquire() throws {
        var m = machine(nil, canAcquire: true)
        let first = m.requestToken(waiter: 1, minimumValidity: 0, now: t0)
        #expect(first == .start(1, .acquire))
        for waiter in 2...50 {
            #expect(m.requestToken(waiter: UInt64(waiter), minimumValidity: 0, now: t0) == .none)
        }
        let token = OAuthToken(accessToken: "ANON")
        let id = try #require(first.started)
        #expect(m.operationFinished(id, outcome: .success(token)) == .persist(token))
        #expect(m.persisted(id, token: token, succeeded: true) == .succeed(Array(1...50), token, .acquired))

        var none = machine(nil)
        #expect(none.requestToken(waiter: 1, minimumValidity: 0, now: t0) == .answer(.failure(.missingCredential)))
    }

    @Test("a rejected acquire is transient: nothing to expire")
    func acquireRejected() throws {
        var m = machine(nil, canAcquire: true)
        let id = try #require(m.requestToken(waiter: 1, minimumValidity: 0, now: t0).started)
        #expect(m.operationFinished(id, outcome: .rejected) == .fail([1]))
        #expect(m.phase == .idle)
    }

    @Test("the refresh window stops a refresh storm with excessiveRefresh, then lets refreshes through again")
    func refreshWindow() throws {
        var m = machine(fresh, window: RefreshWindow(interval: 30, maximumAttempts: 3))
        var now = t0
        for round in 0..<3 {
            let action = m.requestRefresh(waiter: UInt64(round), rejecting: m.token?.accessToken, now: now)
            let id = try #require(action.started)
            let new = OAuthToken(accessToken: "T\(round)", refreshToken: "R")
            _ = m.operationFinished(id, outcome: .success(new))
            _ = m.persisted(id, token: new, succeeded: true)
            now += 1
        }
        let refused = m.requestRefresh(waiter: 10, rejecting: m.token?.accessToken, now: now)
        #expect(refused == .answer(.failure(.excessiveRefresh)))
        let later = m.requestRefresh(waiter: 11, rejecting: m.token?.accessToken, now: t0 + 31)
        #expect(later.started != nil)
    }

    @Test("the leeway is capped at half the lifetime: a 3-second token is refreshed once, then used")
    func shortLifetime() throws {
        let short = OAuthToken(accessToken: "S", refreshToken: "R", expiresAt: t0 + 3, issuedAt: t0)
        var m = machine(short)
        #expect(m.requestToken(waiter: 1, minimumValidity: 60, now: t0) == .answer(.success(short)))
        let id = try #require(m.requestToken(waiter: 2, minimumValidity: 60, now: t0 + 2).started)
        let next = OAuthToken(accessToken: "N", refreshToken: "R", expiresAt: t0 + 5, issuedAt: t0 + 2)
        _ = m.operationFinished(id, outcome: .success(next))
        _ = m.persisted(id, token: next, succeeded: true)
        #expect(m.requestToken(waiter: 3, minimumValidity: 60, now: t0 + 2.1) == .answer(.success(next)))
    }

    @Test("a token without refresh token is used until it expires, then the session ends")
    func noRefreshToken() {
        let token = OAuthToken(accessToken: "X", expiresAt: t0 + 30, issuedAt: t0 - 3570)
        var m = machine(token)
        #expect(m.requestToken(waiter: 1, minimumValidity: 60, now: t0) == .answer(.success(token)))
        #expect(m.requestRefresh(waiter: 2, rejecting: "X", now: t0) == .expire([2]))
        #expect(m.phase == .expired)
    }
}

extension AuthSession.StateMachine.Action {
    /// The operation this action starts, if it starts one.
    var started: AuthSession.StateMachine.OperationID? {
        guard case .start(let id, _) = self else { return nil }
        return id
    }
}
