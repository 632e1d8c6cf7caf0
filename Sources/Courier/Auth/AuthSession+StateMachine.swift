import Foundation

extension AuthSession {
    /// The decisions behind ``AuthSession``, with no I/O: every input mutates the state and
    /// returns the one action the session must perform, of a type made for that input, so the
    /// session's handling of each is exhaustive.
    ///
    /// Keeping the decisions here, away from tasks, continuations and files, is what lets them
    /// be tested exhaustively — the duplicate-refresh and stale-credential bugs of other
    /// libraries all lived in code that mixed the two.
    struct StateMachine {
        typealias WaiterID = UInt64
        typealias OperationID = UInt64

        /// What an operation does. Each runs under the store's lease and starts by reading the
        /// store again: when another session stored a different token meanwhile, the operation
        /// adopts it instead (``Outcome/adopted(_:)``).
        enum Operation: Equatable {
            /// Call the refresh closure with this token.
            case refresh(OAuthToken)
            /// Call the acquire closure, to replace this token (if any).
            case acquire(replacing: OAuthToken?)
            /// End the session: this token cannot be renewed. Clears the store if it still
            /// holds the token.
            case end(OAuthToken, SessionExpiry)
        }

        /// Why a request fails without waiting for an operation.
        enum Failure: Error, Equatable {
            case missingCredential
            case sessionExpired
            case excessiveRefresh
        }

        /// How an operation ended.
        enum Outcome: Equatable {
            /// The operation got a new token and stored it, at this generation.
            case renewed(OAuthToken, generation: UInt64)
            /// The operation got a new token but the store refused it (a full disk, a locked
            /// Keychain): the store is still at generation `over`. The token is the only valid
            /// credential there is (the server may have retired the old refresh token), so it
            /// is used from memory and written as soon as the store accepts writes.
            case renewedUnstored(OAuthToken, over: UInt64)
            /// The store held what another session wrote since: this token (or none).
            case adopted(StoredToken)
            /// The session is over, for this reason; the store was cleared (at this
            /// generation, when the write succeeded).
            case ended(SessionExpiry, generation: UInt64?)
            /// Anything that may pass: network, time-out, 5xx, unreadable answer, a store
            /// that could not be written, a lease held too long by another session.
            case transient
        }

        // MARK: Actions, one type per input

        /// What to do for a request (``requestToken(waiter:minimumValidity:now:)``,
        /// ``requestRefresh(waiter:rejecting:now:)``).
        enum RequestAction: Equatable {
            /// Answer the request now, without waiting.
            case answer(Result<OAuthToken, Failure>)
            /// The request waits for the operation in flight.
            case join
            /// The request waits for the operation in flight, which had already outlived its
            /// time-out: start a new time-out for the operation's waiters.
            case joinAndArmTimeout(OperationID)
            /// The request waits for this new operation: start it, and its time-out.
            case start(OperationID, Operation)
        }

        /// What to do when an operation ends (``operationFinished(_:outcome:now:)``).
        enum FinishAction: Equatable {
            /// The operation was cancelled by a sign-in or sign-out: its answer must not bring
            /// the old session back.
            case ignore
            /// Resume the waiters with the token, then emit the event.
            case succeed([WaiterID], OAuthToken, AuthEvent)
            /// As ``succeed``, but the token could not be stored: also report the failed
            /// write (it is tried again before the next request).
            case succeedUnstored([WaiterID], OAuthToken, AuthEvent)
            /// Fail the waiters with the operation's error, then emit
            /// ``AuthEvent/refreshFailed``.
            case fail([WaiterID])
            /// The session is over (the store is cleared already): fail the waiters with
            /// `sessionExpired`, then emit ``AuthEvent/sessionExpired``.
            case expire([WaiterID])
            /// Another session signed out: fail the waiters with `missingCredential`, then
            /// emit ``AuthEvent/signedOut``.
            case signOut([WaiterID])
        }

        /// What to do when an operation's time-out fires (``operationTimedOut(_:)``).
        enum TimeoutAction: Equatable {
            /// The time-out is for an operation that ended, or whose waiters failed already.
            case ignore
            /// Fail these waiters with ``RefreshTimeout``, then emit ``AuthEvent/refreshFailed``.
            case fail([WaiterID])
        }

        /// What to do when the app signs in or out (``signedIn(_:generation:)``,
        /// ``signedOut()``): resume the waiters with `result`, emit `event`, then cancel the
        /// operation in flight, if any.
        struct ReplaceAction: Equatable {
            let event: AuthEvent
            let waiters: [WaiterID]
            let result: Result<OAuthToken, Failure>
            let cancel: OperationID?
        }

        /// What to do when another session changed the store (``storeChanged(_:now:)``).
        enum ChangeAction: Equatable {
            /// Nothing the app needs to hear (the same token, or the session was busy).
            case none
            /// The token changed as another session changed it: emit the same event.
            case emit(AuthEvent)
        }

        // MARK: State

        /// The operation in flight.
        struct InFlight: Equatable {
            var id: OperationID
            var operation: Operation
            var waiters: [WaiterID]
            /// Whether a time-out is running for ``waiters``. After a time-out fails them the
            /// operation goes on (its refresh token is at the server); the next waiter starts a
            /// new time-out.
            var timeoutArmed = true
        }

        enum Phase: Equatable {
            case idle
            case busy(InFlight)
            /// The refresh token was rejected: fail fast until the next sign-in.
            case expired(SessionExpiry)
        }

        private(set) var token: OAuthToken?
        private(set) var phase: Phase = .idle
        /// The store's generation that ``token`` reflects (`nil`: unknown, as after a failed
        /// read).
        private(set) var generation: UInt64?
        private let window: RefreshWindow?
        private let canAcquire: Bool
        /// When each refresh that followed the rejection of a fresh token started, within the
        /// last ``RefreshWindow/interval``: the refreshes ``RefreshWindow`` limits.
        private var loopRefreshes: [Date] = []
        private var nextOperationID: OperationID = 1
        /// When the current token arrived from a refresh or acquire (`nil`: loaded or signed
        /// in), to know the lifetime of a token that has an expiry but no ``OAuthToken/issuedAt``.
        private var arrivedAt: Date?
        /// The current token came from a refresh or acquire already expired by this device's
        /// clock: the server just issued it, so the clock (or the server's) is off, and the
        /// expiry is ignored — the token is used until the server rejects it.
        private(set) var ignoresExpiry = false
        /// The current token could not be stored: the store is still at this generation (and
        /// holds the token it replaced). `nil` when the token is stored.
        private(set) var unstored: Unstored?

        /// A token kept in memory because the store refused it.
        struct Unstored: Equatable {
            /// The generation the write was meant to replace.
            var over: UInt64
            /// What the write is.
            var change: TokenChange
        }

        init(token: OAuthToken?, generation: UInt64? = nil, window: RefreshWindow?, canAcquire: Bool) {
            self.token = token
            self.generation = generation
            self.window = window
            self.canAcquire = canAcquire
        }

        /// Whether a refresh (or acquire, or the end of the session) is under way.
        var isBusy: Bool {
            if case .busy = phase { return true }
            return false
        }

        /// Why the session ended, while it is over.
        var expiry: SessionExpiry? {
            if case .expired(let expiry) = phase { return expiry }
            return nil
        }

        // MARK: Requests

        /// A request wants a token valid for at least `minimumValidity` seconds (capped at half
        /// the token's lifetime, so a short-lived token is not refreshed on every request).
        mutating func requestToken(waiter: WaiterID, minimumValidity: TimeInterval, now: Date) -> RequestAction {
            switch phase {
            case .expired: return .answer(.failure(.sessionExpired))
            // While a token is being replaced, requests wait and go out with the new one only:
            // the old one may be the very token the server just rejected.
            case .busy: return join(waiter)
            case .idle: break
            }
            if let token = usableToken(minimumValidity: minimumValidity, now: now) { return .answer(.success(token)) }
            return startRenewal(for: waiter, now: now, rejected: false)
        }

        /// The answer a request gets without a renewal: the current token while it is valid
        /// for `minimumValidity` seconds (see ``requestToken(waiter:minimumValidity:now:)``),
        /// the end of the session; `nil` when only a renewal (or the operation in flight)
        /// could answer. What a request gets while the store cannot be reached.
        func answerWithoutRenewal(minimumValidity: TimeInterval, now: Date) -> Result<OAuthToken, Failure>? {
            switch phase {
            case .expired: return .failure(.sessionExpired)
            case .busy: return nil
            case .idle: return usableToken(minimumValidity: minimumValidity, now: now).map { .success($0) }
            }
        }

        /// The current token, if a request may go out with it now.
        private func usableToken(minimumValidity: TimeInterval, now: Date) -> OAuthToken? {
            if let token {
                if ignoresExpiry { return token }
                let lifetime = token.lifetime ?? arrivedAt.flatMap { token.expiresAt?.timeIntervalSince($0) }
                // NaN-safe: a non-finite validity counts as no leeway at all.
                var validity = lifetime.map { min(minimumValidity, max(0, $0) / 2) } ?? minimumValidity
                if !validity.isFinite { validity = 0 }
                if !token.expires(within: validity, now: now) { return token }
                if token.refreshToken == nil, !canAcquire, !token.expires(within: 0, now: now) {
                    // Nothing can renew it early; it is still valid, so use it to the end.
                    return token
                }
            }
            return nil
        }

        /// A request was rejected with `staleAccessToken` (nil if it carried none).
        mutating func requestRefresh(waiter: WaiterID, rejecting staleAccessToken: String?, now: Date)
            -> RequestAction
        {
            if case .expired = phase { return .answer(.failure(.sessionExpired)) }
            if let token, token.accessToken != staleAccessToken {
                // Someone refreshed since that request left: replay with the current token.
                return .answer(.success(token))
            }
            if isBusy { return join(waiter) }
            return startRenewal(for: waiter, now: now, rejected: true)
        }

        /// A request found that `lostToken` cannot be used (its DPoP key is lost): the session
        /// ends with `expiry`, unless the token was replaced meanwhile (that one is the answer)
        /// or an operation in flight may replace it (the request waits for it). The end, like
        /// every end, clears the store only if it still holds the lost token.
        mutating func requestEnd(waiter: WaiterID, lostToken: OAuthToken, expiry: SessionExpiry) -> RequestAction {
            if case .expired = phase { return .answer(.failure(.sessionExpired)) }
            if isBusy { return join(waiter) }
            guard let token else { return .answer(.failure(.missingCredential)) }
            guard Self.sameCredential(token, lostToken) else { return .answer(.success(token)) }
            return begin(.end(token, expiry), for: waiter)
        }

        /// Adds `waiter` to the operation in flight. If that operation already outlived its
        /// time-out, it is still the one to wait for: starting another would send the same
        /// refresh token twice at once, and a server with reuse detection would revoke the
        /// whole session.
        private mutating func join(_ waiter: WaiterID) -> RequestAction {
            guard case .busy(var inFlight) = phase else { preconditionFailure("join without an operation") }
            inFlight.waiters.append(waiter)
            let action: RequestAction = inFlight.timeoutArmed ? .join : .joinAndArmTimeout(inFlight.id)
            inFlight.timeoutArmed = true
            phase = .busy(inFlight)
            return action
        }

        /// Starts a refresh (or acquire, or the end of the session) for `waiter`. `rejected`:
        /// the server rejected the current token; otherwise the token only expires soon (or
        /// looks expired by this device's clock), and the refresh is a healthy session's
        /// scheduled one.
        private mutating func startRenewal(for waiter: WaiterID, now: Date, rejected: Bool) -> RequestAction {
            let operation: Operation
            if let token, token.refreshToken != nil {
                operation = .refresh(token)
            } else if canAcquire {
                operation = .acquire(replacing: token)
            } else if let token {
                // A token that cannot be renewed and no longer works: only a sign-in helps —
                // unless another session stored a new one, which the operation looks for first.
                return begin(.end(token, SessionExpiry(cause: .notRenewable, date: now)), for: waiter)
            } else {
                return .answer(.failure(.missingCredential))
            }
            if let window {
                // A NaN interval would never let a start age out: it counts as the default.
                let interval = window.interval.isNaN ? RefreshWindow().interval : window.interval
                loopRefreshes.removeAll { now.timeIntervalSince($0) >= interval }
                if loopRefreshes.count >= window.maximumAttempts {
                    // A token the server has not rejected is still worth a try: only the server
                    // knows whether it has expired (a lifetime too short to keep up with, or a
                    // wrong clock, must not lock the user out).
                    if !rejected, let token { return .answer(.success(token)) }
                    return .answer(.failure(.excessiveRefresh))
                }
                if rejected, rejectedWhileFresh(now: now) { loopRefreshes.append(now) }
            }
            return begin(operation, for: waiter)
        }

        /// Whether the server rejected the current token while it was fresh: in the first half
        /// of its lifetime, when this session knows the lifetime and the token's age — the sign
        /// of a server that rejects every token it issues, which ``RefreshWindow`` exists to
        /// stop. A healthy session's tokens are rejected, if ever, near their expiry (they are
        /// renewed proactively from half their lifetime on); a token whose lifetime or age is
        /// unknown counts as fresh.
        private func rejectedWhileFresh(now: Date) -> Bool {
            guard let token else { return true }
            let issuedAt = token.issuedAt ?? arrivedAt
            guard let issuedAt, let expiresAt = token.expiresAt else { return true }
            let lifetime = expiresAt.timeIntervalSince(issuedAt)
            guard lifetime.isFinite, lifetime > 0 else { return true }
            return now.timeIntervalSince(issuedAt) < lifetime / 2
        }

        private mutating func begin(_ operation: Operation, for waiter: WaiterID) -> RequestAction {
            let id = nextOperationID
            nextOperationID += 1
            phase = .busy(InFlight(id: id, operation: operation, waiters: [waiter]))
            return .start(id, operation)
        }

        // MARK: Operation results

        /// The operation `id` ended with `outcome` (its token, if any, is stored already: a
        /// rotated refresh token is on disk before anyone uses it).
        mutating func operationFinished(_ id: OperationID, outcome: Outcome, now: Date) -> FinishAction {
            // An operation that is no longer in flight was cancelled by a sign-in or sign-out:
            // its answer must not bring the old session back.
            guard case .busy(let inFlight) = phase, inFlight.id == id else { return .ignore }
            switch outcome {
            case .renewed(let newToken, let newGeneration):
                adopt(newToken)
                generation = newGeneration
                arrivedAt = now
                ignoresExpiry = newToken.expires(within: 0, now: now)
                phase = .idle
                let event: AuthEvent = if case .acquire = inFlight.operation { .acquired } else { .refreshed }
                return .succeed(inFlight.waiters, newToken, event)
            case .renewedUnstored(let newToken, let over):
                adopt(newToken)
                generation = over
                arrivedAt = now
                ignoresExpiry = newToken.expires(within: 0, now: now)
                phase = .idle
                let isAcquire = if case .acquire = inFlight.operation { true } else { false }
                unstored = Unstored(over: over, change: isAcquire ? .acquired : .refreshed)
                return .succeedUnstored(inFlight.waiters, newToken, isAcquire ? .acquired : .refreshed)
            case .adopted(let stored):
                generation = stored.generation
                if let storedToken = stored.token {
                    adoptStored(storedToken)
                    phase = .idle
                    return .succeed(inFlight.waiters, storedToken, Self.event(for: stored.change))
                }
                if stored.change == .sessionExpired {
                    expire(SessionExpiry(cause: .anotherSession, date: now))
                    return .expire(inFlight.waiters)
                }
                token = nil
                unstored = nil
                phase = .idle
                return .signOut(inFlight.waiters)
            case .ended(let expiry, let newGeneration):
                if let newGeneration { generation = newGeneration }
                expire(expiry)
                return .expire(inFlight.waiters)
            case .transient:
                phase = .idle
                return .fail(inFlight.waiters)
            }
        }

        /// The operation `id` took longer than the session's time-out: its waiters fail, but the
        /// operation stays in flight. Its refresh token has reached the server, so a second
        /// refresh with the same token could look like a stolen token being replayed; later
        /// requests wait for this one, and its answer is adopted when it comes.
        mutating func operationTimedOut(_ id: OperationID) -> TimeoutAction {
            guard case .busy(var inFlight) = phase, inFlight.id == id, inFlight.timeoutArmed else { return .ignore }
            let waiters = inFlight.waiters
            inFlight.waiters = []
            inFlight.timeoutArmed = false
            phase = .busy(inFlight)
            return .fail(waiters)
        }

        // MARK: Sign-in and sign-out

        /// The app signed in with `newToken` (already written to the store, at `generation`).
        /// Waiters of an operation in flight get the new token; that operation's late answer is
        /// ignored.
        mutating func signedIn(_ newToken: OAuthToken, generation newGeneration: UInt64?) -> ReplaceAction {
            let inFlight = operationInFlight
            adopt(newToken)
            generation = newGeneration
            phase = .idle
            loopRefreshes.removeAll()
            return ReplaceAction(
                event: .signedIn, waiters: inFlight?.waiters ?? [], result: .success(newToken), cancel: inFlight?.id)
        }

        /// The app signed out (the store is cleared next). Waiters fail; a late answer is
        /// ignored.
        mutating func signedOut() -> ReplaceAction {
            let inFlight = operationInFlight
            token = nil
            unstored = nil
            phase = .idle
            return ReplaceAction(
                event: .signedOut, waiters: inFlight?.waiters ?? [], result: .failure(.missingCredential),
                cancel: inFlight?.id)
        }

        /// The store's contents, read when the session was first used: the session starts
        /// from them, with no event — unless the token there is a first token another session
        /// acquired (``AuthEvent/acquired``: the app learns it has a session, as it would have
        /// had this session acquired it), or the store was emptied by the end of a session
        /// (another session's refresh token was rejected, maybe after this one was created):
        /// this one has ended too.
        mutating func loaded(_ stored: StoredToken?, generation newGeneration: UInt64?, now: Date) -> ChangeAction {
            token = stored?.token
            generation = newGeneration
            if let stored, stored.token != nil, stored.change == .acquired { return .emit(.acquired) }
            guard let stored, stored.token == nil, stored.change == .sessionExpired else { return .none }
            expire(SessionExpiry(cause: .anotherSession, date: now))
            return .emit(.sessionExpired)
        }

        /// The store is at `generation` and this state already reflects it: this session wrote
        /// it (its sign-out), or it could not be read (it is read again after the next write).
        mutating func note(generation newGeneration: UInt64?) {
            generation = newGeneration
        }

        /// The token kept in memory was written after all: at `newGeneration`, or not at all
        /// (`nil`) because another session wrote the store first, in which case the store is
        /// read again before the next request and what it holds is adopted.
        mutating func unstoredWritten(generation newGeneration: UInt64?) {
            guard unstored != nil else { return }
            unstored = nil
            generation = newGeneration
        }

        // MARK: Other sessions

        /// The store is at `stored` (its generation differs from ``generation``): another
        /// session signed in, refreshed, signed out or ended the session. Only called while no
        /// operation is in flight: an operation reads the store itself, under the lease.
        mutating func storeChanged(_ stored: StoredToken, now: Date) -> ChangeAction {
            guard !isBusy, stored.generation != generation else { return .none }
            generation = stored.generation
            guard let storedToken = stored.token else {
                guard token != nil else { return .none }
                if stored.change == .sessionExpired {
                    expire(SessionExpiry(cause: .anotherSession, date: now))
                    return .emit(.sessionExpired)
                }
                token = nil
                unstored = nil
                phase = .idle
                return .emit(.signedOut)
            }
            if let token, Self.sameCredential(token, storedToken), expiry == nil { return .none }
            adoptStored(storedToken)
            phase = .idle
            return .emit(Self.event(for: stored.change))
        }

        // MARK: Helpers

        /// Whether two tokens are the same credential (a token read back from a file has lost
        /// its dates' fractions of a second).
        static func sameCredential(_ first: OAuthToken, _ second: OAuthToken) -> Bool {
            first.accessToken == second.accessToken && first.refreshToken == second.refreshToken
        }

        /// The event a session emits for a token another session stored.
        static func event(for change: TokenChange?) -> AuthEvent {
            switch change {
            case .signedIn: .signedIn
            case .acquired: .acquired
            case .refreshed, .signedOut, .sessionExpired, nil: .refreshed
            }
        }

        /// Ends the session: token cleared, fail fast from now. Only ever called from a phase
        /// that is not `.expired`, so the session's `.sessionExpired` event is emitted once.
        private mutating func expire(_ expiry: SessionExpiry) {
            token = nil
            unstored = nil
            phase = .expired(expiry)
        }

        /// The operation in flight, if any.
        private var operationInFlight: InFlight? {
            guard case .busy(let inFlight) = phase else { return nil }
            return inFlight
        }

        private mutating func adopt(_ newToken: OAuthToken) {
            token = newToken
            arrivedAt = nil
            ignoresExpiry = false
            unstored = nil
        }

        /// Adopts a token another session stored. It ignores the expiry exactly when the session
        /// that got it did: when the token was already expired as it arrived.
        private mutating func adoptStored(_ storedToken: OAuthToken) {
            adopt(storedToken)
            if let issuedAt = storedToken.issuedAt, let expiresAt = storedToken.expiresAt {
                ignoresExpiry = expiresAt <= issuedAt
            }
        }
    }
}
