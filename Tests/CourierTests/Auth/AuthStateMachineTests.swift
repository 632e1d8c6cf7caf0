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
    var rejectedByServer: SessionExpiry {
        SessionExpiry(cause: .rejectedByTokenEndpoint, statusCode: 400, oauthError: "invalid_grant", date: t0)
    }

    func machine(_ token: OAuthToken?, window: RefreshWindow? = nil, canAcquire: Bool = false) -> Machine {
        Machine(token: token, generation: 1, window: window, canAcquire: canAcquire)
    }

    @Test("a valid token is used at once, with nothing else to do")
    func validTokenUsed() {
        var m = machine(fresh)
        let action = m.requestToken(waiter: 1, minimumValidity: 60, now: t0)
        #expect(action == .answer(.success(fresh)))
        #expect(m.phase == .idle)
        #expect(!m.isBusy)
    }

    @Test("a token whose DPoP key is lost ends the session, unless it was replaced or an operation may replace it")
    func lostKeyEndsTheSession() {
        let lost = SessionExpiry(cause: .dpopKeyLost, date: t0)
        var m = machine(fresh)
        #expect(m.requestEnd(waiter: 1, lostToken: fresh, expiry: lost) == .start(1, .end(fresh, lost)))
        // Already replaced (another process signed in again): that token is the answer.
        var replaced = machine(fresh)
        let older = OAuthToken(accessToken: "old", refreshToken: "R0")
        #expect(replaced.requestEnd(waiter: 1, lostToken: older, expiry: lost) == .answer(.success(fresh)))
        #expect(!replaced.isBusy)
        // An operation in flight may replace it: wait for it rather than end the session.
        var busy = machine(fresh)
        _ = busy.requestToken(waiter: 1, minimumValidity: 60, now: t0.addingTimeInterval(3590))
        #expect(busy.requestEnd(waiter: 2, lostToken: fresh, expiry: lost) != .start(2, .end(fresh, lost)))
        #expect(busy.requestEnd(waiter: 3, lostToken: fresh, expiry: lost).started == nil)
        // No token at all: a sign-in is needed, nothing to end.
        var empty = machine(nil)
        #expect(empty.requestEnd(waiter: 1, lostToken: fresh, expiry: lost) == .answer(.failure(.missingCredential)))
    }

    @Test("a token expiring within the leeway starts one refresh; later callers join it")
    func singleFlight() {
        var m = machine(fresh)
        let now = t0.addingTimeInterval(3590)
        let first = m.requestToken(waiter: 1, minimumValidity: 60, now: now)
        #expect(first == .start(1, .refresh(fresh)))
        #expect(m.isBusy)
        for waiter in 2...100 {
            let joined = m.requestToken(waiter: UInt64(waiter), minimumValidity: 60, now: now)
            #expect(joined == .join)
        }
        let refresh = m.requestRefresh(waiter: 101, rejecting: "A", now: now)
        #expect(refresh == .join)
        guard case .busy(let inFlight) = m.phase else {
            Issue.record("not refreshing")
            return
        }
        #expect(inFlight.waiters == Array(1...101))
    }

    @Test("a renewal resumes every waiter with the new token, emits refreshed and notes its generation")
    func success() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        #expect(m.requestRefresh(waiter: 2, rejecting: "A", now: t0) == .join)
        let new = OAuthToken(accessToken: "B", refreshToken: "R2", expiresAt: t0.addingTimeInterval(7200), issuedAt: t0)
        #expect(m.token == fresh, "nothing is adopted before the operation stored it")
        let finished = m.operationFinished(id, outcome: .renewed(new, generation: 2), now: t0)
        #expect(finished == .succeed([1, 2], new, .refreshed))
        #expect(m.token == new)
        #expect(m.generation == 2)
        #expect(m.phase == .idle)
    }

    @Test("a 401 for a token that was already replaced is answered with the current token")
    func staleRejection() throws {
        var m = machine(fresh)
        #expect(m.requestRefresh(waiter: 1, rejecting: "OLD", now: t0) == .answer(.success(fresh)))
    }

    @Test("the end of the session: waiters and later requests fail fast, and the reason is kept")
    func rejection() throws {
        var m = machine(fresh, canAcquire: true)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        _ = m.requestToken(waiter: 2, minimumValidity: 0, now: t0)
        #expect(m.operationFinished(id, outcome: .ended(rejectedByServer, generation: 2), now: t0) == .expire([1, 2]))
        #expect(m.token == nil)
        #expect(m.expiry == rejectedByServer)
        #expect(m.generation == 2)
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
        #expect(m.operationFinished(id, outcome: .transient, now: t0) == .fail([1]))
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
        #expect(m.operationTimedOut(id) == .ignore)
        // Later requests, whether their token was rejected or only expires soon, join the
        // refresh in flight: the same refresh token is never sent twice at once. The first
        // one to join starts a new time-out for its round.
        let joined = m.requestRefresh(waiter: 2, rejecting: "A", now: t0 + 100)
        #expect(joined == .joinAndArmTimeout(id))
        #expect(m.requestToken(waiter: 3, minimumValidity: 7200, now: t0 + 100) == .join)
        let late = OAuthToken(accessToken: "LATE", refreshToken: "R2")
        #expect(
            m.operationFinished(id, outcome: .renewed(late, generation: 2), now: t0)
                == .succeed([2, 3], late, .refreshed))
        #expect(m.token == late)
        #expect(m.phase == .idle)

        // The second round's time-out fails only its own waiters; a transient failure then
        // frees the slot, and only then may a new refresh start.
        var other = machine(fresh)
        let first = try #require(other.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        _ = other.operationTimedOut(first)
        #expect(other.requestRefresh(waiter: 2, rejecting: "A", now: t0) == .joinAndArmTimeout(first))
        #expect(other.operationTimedOut(first) == .fail([2]))
        #expect(other.operationFinished(first, outcome: .transient, now: t0) == .fail([]))
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
        #expect(m.operationFinished(id, outcome: .ended(rejectedByServer, generation: 2), now: t0) == .expire([2]))
        #expect(m.expiry != nil)
    }

    @Test("sign-in during a refresh hands the new token to the waiters and ignores the refresh's answer")
    func signInDuringRefresh() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        let signed = OAuthToken(accessToken: "S", refreshToken: "RS")
        #expect(
            m.signedIn(signed, generation: 5)
                == .init(event: .signedIn, waiters: [1], result: .success(signed), cancel: id))
        #expect(
            m.operationFinished(id, outcome: .renewed(OAuthToken(accessToken: "OLD-SESSION"), generation: 6), now: t0)
                == .ignore)
        #expect(m.operationFinished(id, outcome: .ended(rejectedByServer, generation: nil), now: t0) == .ignore)
        #expect(m.token == signed)
        #expect(m.generation == 5)
    }

    @Test("sign-out during a refresh fails the waiters and the old session never comes back")
    func signOutDuringRefresh() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        #expect(
            m.signedOut() == .init(event: .signedOut, waiters: [1], result: .failure(.missingCredential), cancel: id))
        #expect(
            m.operationFinished(id, outcome: .renewed(OAuthToken(accessToken: "B"), generation: 2), now: t0) == .ignore)
        #expect(m.token == nil)
        #expect(m.requestToken(waiter: 2, minimumValidity: 0, now: t0) == .answer(.failure(.missingCredential)))
    }

    @Test("sign-in after expiry starts a new session whose expiry is reported again")
    func signInAfterExpiry() throws {
        var m = machine(fresh)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        #expect(m.operationFinished(id, outcome: .ended(rejectedByServer, generation: 2), now: t0) == .expire([1]))
        #expect(
            m.signedIn(fresh, generation: 3)
                == .init(event: .signedIn, waiters: [], result: .success(fresh), cancel: nil))
        #expect(m.expiry == nil)
        #expect(m.requestToken(waiter: 2, minimumValidity: 0, now: t0) == .answer(.success(fresh)))
        let second = try #require(m.requestRefresh(waiter: 3, rejecting: "A", now: t0).started)
        #expect(m.operationFinished(second, outcome: .ended(rejectedByServer, generation: 4), now: t0) == .expire([3]))
    }

    @Test("no token: acquire once for all callers, or fail with missingCredential")
    func acquire() throws {
        var m = machine(nil, canAcquire: true)
        let first = m.requestToken(waiter: 1, minimumValidity: 0, now: t0)
        #expect(first == .start(1, .acquire(replacing: nil)))
        for waiter in 2...50 {
            #expect(m.requestToken(waiter: UInt64(waiter), minimumValidity: 0, now: t0) == .join)
        }
        let token = OAuthToken(accessToken: "ANON")
        let id = try #require(first.started)
        #expect(
            m.operationFinished(id, outcome: .renewed(token, generation: 2), now: t0)
                == .succeed(Array(1...50), token, .acquired))

        var none = machine(nil)
        #expect(none.requestToken(waiter: 1, minimumValidity: 0, now: t0) == .answer(.failure(.missingCredential)))
    }

    @Test("the refresh window stops a refresh storm with excessiveRefresh, then lets refreshes through again")
    func refreshWindow() throws {
        var m = machine(fresh, window: RefreshWindow(interval: 30, maximumAttempts: 3))
        var now = t0
        for round in 0..<3 {
            let action = m.requestRefresh(waiter: UInt64(round), rejecting: m.token?.accessToken, now: now)
            let id = try #require(action.started)
            let new = OAuthToken(accessToken: "T\(round)", refreshToken: "R")
            _ = m.operationFinished(id, outcome: .renewed(new, generation: UInt64(round + 2)), now: now)
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
        _ = m.operationFinished(id, outcome: .renewed(next, generation: 2), now: t0 + 2)
        #expect(m.requestToken(waiter: 3, minimumValidity: 60, now: t0 + 2.1) == .answer(.success(next)))
    }

    @Test("a token without refresh token is used until it expires; then the session ends, after a look at the store")
    func noRefreshToken() throws {
        let token = OAuthToken(accessToken: "X", expiresAt: t0 + 30, issuedAt: t0 - 3570)
        var m = machine(token)
        #expect(m.requestToken(waiter: 1, minimumValidity: 60, now: t0) == .answer(.success(token)))
        let action = m.requestRefresh(waiter: 2, rejecting: "X", now: t0)
        guard case .start(let id, .end(let ended, let expiry)) = action else {
            Issue.record("expected an end-of-session operation, got \(action)")
            return
        }
        #expect(ended == token)
        #expect(expiry.cause == .notRenewable)
        #expect(m.operationFinished(id, outcome: .ended(expiry, generation: 2), now: t0) == .expire([2]))
        #expect(m.expiry?.cause == .notRenewable)
    }
}

/// Another session sharing the store: what this one adopts, and what it emits.
@Suite("AuthSession.StateMachine with other sessions")
struct AuthStateMachineSharedStoreTests {
    typealias Machine = AuthSession.StateMachine

    let t0 = Date(timeIntervalSince1970: 1_000_000)
    var mine: OAuthToken { OAuthToken(accessToken: "A", refreshToken: "R1", expiresAt: t0 + 3600, issuedAt: t0) }
    var theirs: OAuthToken { OAuthToken(accessToken: "B", refreshToken: "R2", expiresAt: t0 + 3600, issuedAt: t0) }

    @Test("a token another session refreshed is adopted with refreshed; the same token is not news")
    func adoptsRefresh() {
        var m = Machine(token: mine, generation: 1, window: nil, canAcquire: false)
        #expect(
            m.storeChanged(StoredToken(token: theirs, generation: 2, change: .refreshed), now: t0) == .emit(.refreshed))
        #expect(m.token == theirs)
        #expect(m.generation == 2)
        #expect(m.requestRefresh(waiter: 1, rejecting: "A", now: t0) == .answer(.success(theirs)))
        // The same generation again, or a new generation holding the same credential: nothing.
        #expect(m.storeChanged(StoredToken(token: theirs, generation: 2, change: .refreshed), now: t0) == .none)
        var reread = theirs
        reread.issuedAt = t0 + 0.5
        #expect(m.storeChanged(StoredToken(token: reread, generation: 3, change: .signedIn), now: t0) == .none)
        #expect(m.generation == 3)
    }

    @Test("another session's sign-in, sign-out and end of session are mirrored with the same event")
    func mirrorsEvents() {
        var m = Machine(token: mine, generation: 1, window: nil, canAcquire: false)
        #expect(
            m.storeChanged(StoredToken(token: nil, generation: 2, change: .signedOut), now: t0) == .emit(.signedOut))
        #expect(m.token == nil)
        #expect(m.requestToken(waiter: 1, minimumValidity: 0, now: t0) == .answer(.failure(.missingCredential)))
        #expect(
            m.storeChanged(StoredToken(token: theirs, generation: 3, change: .signedIn), now: t0) == .emit(.signedIn))
        #expect(m.token == theirs)
        #expect(
            m.storeChanged(StoredToken(token: nil, generation: 4, change: .sessionExpired), now: t0)
                == .emit(.sessionExpired))
        #expect(m.expiry?.cause == .anotherSession)
        #expect(m.requestToken(waiter: 2, minimumValidity: 0, now: t0) == .answer(.failure(.sessionExpired)))
        // Expired here; a sign-in elsewhere brings the session back.
        #expect(m.storeChanged(StoredToken(token: mine, generation: 5, change: .signedIn), now: t0) == .emit(.signedIn))
        #expect(m.expiry == nil)
        #expect(m.requestToken(waiter: 3, minimumValidity: 0, now: t0) == .answer(.success(mine)))
    }

    @Test("while an operation is in flight, a change is left to the operation, which reads the store itself")
    func busyIgnoresChanges() throws {
        var m = Machine(token: mine, generation: 1, window: nil, canAcquire: false)
        let id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        #expect(m.storeChanged(StoredToken(token: theirs, generation: 2, change: .refreshed), now: t0) == .none)
        #expect(m.generation == 1)
        // The operation found the other session's token under the lease and adopted it.
        let adopted = StoredToken(token: theirs, generation: 2, change: .refreshed)
        #expect(m.operationFinished(id, outcome: .adopted(adopted), now: t0) == .succeed([1], theirs, .refreshed))
        #expect(m.generation == 2)
    }

    @Test("an operation that finds the store empty mirrors the other session's sign-out or end of session")
    func adoptsEmptyStore() throws {
        var m = Machine(token: mine, generation: 1, window: nil, canAcquire: false)
        var id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        let signedOut = StoredToken(token: nil, generation: 2, change: .signedOut)
        #expect(m.operationFinished(id, outcome: .adopted(signedOut), now: t0) == .signOut([1]))
        #expect(m.token == nil)
        #expect(m.expiry == nil)

        m = Machine(token: mine, generation: 1, window: nil, canAcquire: false)
        id = try #require(m.requestRefresh(waiter: 1, rejecting: "A", now: t0).started)
        let ended = StoredToken(token: nil, generation: 2, change: .sessionExpired)
        #expect(m.operationFinished(id, outcome: .adopted(ended), now: t0) == .expire([1]))
        #expect(m.expiry?.cause == .anotherSession)
    }

    @Test("an adopted token ignores its expiry exactly when it arrived expired where it was fetched")
    func adoptedExpiry() {
        var m = Machine(token: mine, generation: 1, window: nil, canAcquire: false)
        let skewed = OAuthToken(accessToken: "S", refreshToken: "R", expiresAt: t0 - 10, issuedAt: t0)
        _ = m.storeChanged(StoredToken(token: skewed, generation: 2, change: .refreshed), now: t0)
        #expect(m.ignoresExpiry)
        let old = OAuthToken(accessToken: "O", refreshToken: "R", expiresAt: t0 - 10, issuedAt: t0 - 3610)
        _ = m.storeChanged(StoredToken(token: old, generation: 3, change: .refreshed), now: t0)
        #expect(!m.ignoresExpiry)
        #expect(m.requestToken(waiter: 1, minimumValidity: 0, now: t0).started != nil)
    }
}

extension AuthSession.StateMachine.RequestAction {
    /// The operation this action starts, if it starts one.
    var started: AuthSession.StateMachine.OperationID? {
        guard case .start(let id, _) = self else { return nil }
        return id
    }
}
