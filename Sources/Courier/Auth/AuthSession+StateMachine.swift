import Foundation

/// The decisions behind ``AuthSession``, with no I/O: every input mutates the state and
/// returns the ``Effects`` the session must perform, in order (persist, resume waiters,
/// emit events, cancel or start an operation).
///
/// Keeping the decisions here, away from tasks and continuations, is what lets them be
/// tested exhaustively — the duplicate-refresh and stale-credential bugs of other libraries
/// all lived in code that mixed the two.
struct AuthStateMachine {
    typealias WaiterID = UInt64
    typealias OperationID = UInt64

    /// What an operation does.
    enum Operation: Equatable {
        /// Call the refresh closure with this token.
        case refresh(OAuthToken)
        /// Call the acquire closure.
        case acquire
    }

    /// Why a waiter fails. `transient` stands for the error the operation threw; the session
    /// substitutes it.
    enum Failure: Error, Equatable {
        case missingCredential
        case sessionExpired
        case excessiveRefresh
        case transient
    }

    /// How an operation ended, as the session classified the closure's answer.
    enum Outcome: Equatable {
        case success(OAuthToken)
        /// The server rejected the refresh token (`invalid_grant`): the session is over.
        case rejected
        /// Anything that may pass: network, time-out, 5xx, unreadable answer.
        case transient
    }

    /// One waiter to resume with a token or a failure.
    struct Resumption: Equatable {
        var waiter: WaiterID
        var result: Result<OAuthToken, Failure>
    }

    /// What to write to the store.
    enum Persist: Equatable {
        case save(OAuthToken)
        case clear
    }

    /// What the session must do, in this order.
    struct Effects: Equatable {
        var persist: Persist?
        var resume: [Resumption] = []
        var events: [AuthEvent] = []
        var cancel: OperationID?
        var start: (id: OperationID, operation: Operation)?
        /// Start the time-out for the waiters of this operation (which had none waiting on a
        /// time-out): requests that join a refresh that already outlived its time-out get a
        /// time-out of their own. ``start`` implies it.
        var armTimeout: OperationID?

        static func == (lhs: Effects, rhs: Effects) -> Bool {
            lhs.persist == rhs.persist && lhs.resume == rhs.resume && lhs.events == rhs.events
                && lhs.cancel == rhs.cancel && lhs.start?.id == rhs.start?.id
                && lhs.start?.operation == rhs.start?.operation && lhs.armTimeout == rhs.armTimeout
        }
    }

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
        case expired
    }

    private(set) var token: OAuthToken?
    /// Bumped on every change of ``token``.
    private(set) var version: UInt64 = 0
    private(set) var phase: Phase = .idle
    let window: RefreshWindow?
    let canAcquire: Bool
    private var refreshStarts: [Date] = []
    private var nextOperationID: OperationID = 1
    /// When the current token arrived from a refresh or acquire (`nil`: loaded or signed
    /// in), to know the lifetime of a token that has an expiry but no ``OAuthToken/issuedAt``.
    private var arrivedAt: Date?
    /// The current token came from a refresh or acquire already expired by this device's
    /// clock: the server just issued it, so the clock (or the server's) is off, and the
    /// expiry is ignored — the token is used until the server rejects it.
    private(set) var ignoresExpiry = false

    init(token: OAuthToken?, window: RefreshWindow?, canAcquire: Bool) {
        self.token = token
        self.window = window
        self.canAcquire = canAcquire
    }

    // MARK: Requests

    /// A request wants a token valid for at least `minimumValidity` seconds (capped at half
    /// the token's lifetime, so a short-lived token is not refreshed on every request).
    mutating func requestToken(waiter: WaiterID, minimumValidity: TimeInterval, now: Date) -> Effects {
        if phase == .expired { return fail(waiter, .sessionExpired) }
        if case .busy = phase {
            // While a token is being replaced, requests wait and go out with the new one
            // only: the old one may be the very token the server just rejected.
            return join(waiter)
        }
        if let token {
            if ignoresExpiry { return use(waiter, token) }
            let lifetime = token.lifetime ?? arrivedAt.flatMap { token.expiresAt?.timeIntervalSince($0) }
            // NaN-safe: a non-finite validity counts as no leeway at all.
            var validity = lifetime.map { min(minimumValidity, max(0, $0) / 2) } ?? minimumValidity
            if !validity.isFinite { validity = 0 }
            if !token.expires(within: validity, now: now) { return use(waiter, token) }
        }
        if let token, token.refreshToken == nil, !canAcquire, !token.expires(within: 0, now: now) {
            // Nothing can renew it early; it is still valid, so use it to the end.
            return use(waiter, token)
        }
        return startRenewal(for: waiter, now: now, proactive: true)
    }

    /// A request was rejected with `staleAccessToken` (nil if it carried none).
    mutating func requestRefresh(waiter: WaiterID, rejecting staleAccessToken: String?, now: Date) -> Effects {
        if phase == .expired { return fail(waiter, .sessionExpired) }
        if let token, token.accessToken != staleAccessToken {
            // Someone refreshed since that request left: replay with the current token.
            return use(waiter, token)
        }
        if case .busy = phase { return join(waiter) }
        return startRenewal(for: waiter, now: now, proactive: false)
    }

    /// Adds `waiter` to the operation in flight. If that operation already outlived its
    /// time-out, it is still the one to wait for: starting another would send the same
    /// refresh token twice at once, and a server with reuse detection would revoke the
    /// whole session.
    private mutating func join(_ waiter: WaiterID) -> Effects {
        guard case .busy(var inFlight) = phase else { return Effects() }
        inFlight.waiters.append(waiter)
        var effects = Effects()
        if !inFlight.timeoutArmed {
            inFlight.timeoutArmed = true
            effects.armTimeout = inFlight.id
        }
        phase = .busy(inFlight)
        return effects
    }

    /// Starts a refresh (or acquire) for `waiter`. `proactive`: the token has not been
    /// rejected, it only expires soon (or looks expired by this device's clock).
    private mutating func startRenewal(for waiter: WaiterID, now: Date, proactive: Bool) -> Effects {
        let operation: Operation
        if let token, token.refreshToken != nil {
            operation = .refresh(token)
        } else if canAcquire {
            operation = .acquire
        } else if token != nil {
            // A token that cannot be renewed and no longer works: only a sign-in helps.
            var effects = expire()
            effects.resume.append(Resumption(waiter: waiter, result: .failure(.sessionExpired)))
            return effects
        } else {
            return fail(waiter, .missingCredential)
        }
        if let window {
            // A NaN interval would never let a start age out: it counts as the default.
            let interval = window.interval.isNaN ? RefreshWindow().interval : window.interval
            refreshStarts.removeAll { now.timeIntervalSince($0) >= interval }
            if refreshStarts.count >= window.maximumAttempts {
                // A token the server has not rejected is still worth a try: only the server
                // knows whether it has expired (a lifetime too short to keep up with, or a
                // wrong clock, must not lock the user out).
                if proactive, let token { return use(waiter, token) }
                return fail(waiter, .excessiveRefresh)
            }
            refreshStarts.append(now)
        }
        let id = nextOperationID
        nextOperationID += 1
        phase = .busy(InFlight(id: id, operation: operation, waiters: [waiter]))
        var effects = Effects()
        effects.start = (id, operation)
        return effects
    }

    // MARK: Operation results

    /// The operation `id` ended. A success is persisted first (``persisted(_:succeeded:)``
    /// then resumes the waiters), so a rotated refresh token is stored before anyone uses it.
    mutating func operationFinished(_ id: OperationID, outcome: Outcome) -> Effects {
        // An operation that is no longer in flight was cancelled by a sign-in or sign-out:
        // its answer must not bring the old session back.
        guard case .busy(let inFlight) = phase, inFlight.id == id else { return Effects() }
        switch outcome {
        case .success(let newToken):
            return Effects(persist: .save(merged(newToken, replacing: inFlight.operation)))
        case .rejected:
            if inFlight.operation == .acquire { return finishTransient(inFlight) }
            var effects = expire()
            effects.resume = inFlight.waiters.map { Resumption(waiter: $0, result: .failure(.sessionExpired)) }
            return effects
        case .transient:
            return finishTransient(inFlight)
        }
    }

    /// The store write requested by ``operationFinished(_:outcome:)`` for `id` is done.
    ///
    /// - Parameter now: when the token arrived (`nil`: unknown). A token that arrives
    ///   already expired by this clock has its expiry ignored (see ``ignoresExpiry``).
    mutating func persisted(_ id: OperationID, token newToken: OAuthToken, succeeded: Bool, now: Date? = nil)
        -> Effects
    {
        guard case .busy(let inFlight) = phase, inFlight.id == id else { return Effects() }
        guard succeeded else { return finishTransient(inFlight) }
        adopt(newToken)
        if let now {
            arrivedAt = now
            ignoresExpiry = newToken.expires(within: 0, now: now)
        }
        phase = .idle
        var effects = Effects()
        effects.resume = inFlight.waiters.map { Resumption(waiter: $0, result: .success(newToken)) }
        effects.events = [inFlight.operation == .acquire ? .acquired : .refreshed]
        return effects
    }

    /// The operation `id` took longer than the session's time-out: its waiters fail, but the
    /// operation stays in flight. Its refresh token has reached the server, so a second
    /// refresh with the same token could look like a stolen token being replayed; later
    /// requests wait for this one, and its answer is adopted when it comes.
    mutating func operationTimedOut(_ id: OperationID) -> Effects {
        guard case .busy(var inFlight) = phase, inFlight.id == id, inFlight.timeoutArmed else { return Effects() }
        var effects = Effects()
        effects.resume = inFlight.waiters.map { Resumption(waiter: $0, result: .failure(.transient)) }
        effects.events = [.refreshFailed]
        inFlight.waiters = []
        inFlight.timeoutArmed = false
        phase = .busy(inFlight)
        return effects
    }

    private mutating func finishTransient(_ inFlight: InFlight) -> Effects {
        phase = .idle
        var effects = Effects()
        effects.resume = inFlight.waiters.map { Resumption(waiter: $0, result: .failure(.transient)) }
        effects.events = [.refreshFailed]
        return effects
    }

    // MARK: Sign-in and sign-out

    /// The app signed in with `newToken` (already written to the store). Waiters of an
    /// operation in flight get the new token; that operation's late answer is ignored.
    mutating func signedIn(_ newToken: OAuthToken) -> Effects {
        var effects = Effects(events: [.signedIn])
        if case .busy(let inFlight) = phase {
            effects.resume = inFlight.waiters.map { Resumption(waiter: $0, result: .success(newToken)) }
            effects.cancel = inFlight.id
        }
        adopt(newToken)
        phase = .idle
        refreshStarts.removeAll()
        return effects
    }

    /// The app signed out (the store was cleared). Waiters fail; a late answer is ignored.
    mutating func signedOut() -> Effects {
        var effects = Effects(events: [.signedOut])
        if case .busy(let inFlight) = phase {
            effects.resume = inFlight.waiters.map { Resumption(waiter: $0, result: .failure(.missingCredential)) }
            effects.cancel = inFlight.id
        }
        token = nil
        version += 1
        phase = .idle
        return effects
    }

    // MARK: Helpers

    /// Ends the session: token cleared, `.sessionExpired` emitted once, fail fast from now.
    private mutating func expire() -> Effects {
        let alreadyExpired = phase == .expired
        token = nil
        version += 1
        phase = .expired
        return Effects(persist: .clear, events: alreadyExpired ? [] : [.sessionExpired])
    }

    private mutating func adopt(_ newToken: OAuthToken) {
        token = newToken
        version += 1
        arrivedAt = nil
        ignoresExpiry = false
    }

    /// A token response without `refresh_token` keeps the old one (RFC 6749 §6).
    private func merged(_ newToken: OAuthToken, replacing operation: Operation) -> OAuthToken {
        guard newToken.refreshToken == nil, case .refresh(let old) = operation else { return newToken }
        var result = newToken
        result.refreshToken = old.refreshToken
        return result
    }

    private func use(_ waiter: WaiterID, _ token: OAuthToken) -> Effects {
        Effects(resume: [Resumption(waiter: waiter, result: .success(token))])
    }

    private func fail(_ waiter: WaiterID, _ failure: Failure) -> Effects {
        Effects(resume: [Resumption(waiter: waiter, result: .failure(failure))])
    }
}
