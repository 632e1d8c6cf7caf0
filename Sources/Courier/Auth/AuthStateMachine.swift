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

        static func == (lhs: Effects, rhs: Effects) -> Bool {
            lhs.persist == rhs.persist && lhs.resume == rhs.resume && lhs.events == rhs.events
                && lhs.cancel == rhs.cancel && lhs.start?.id == rhs.start?.id
                && lhs.start?.operation == rhs.start?.operation
        }
    }

    /// The operation in flight.
    struct InFlight: Equatable {
        var id: OperationID
        var operation: Operation
        var waiters: [WaiterID]
        /// The token version when it started: a late success is adopted only if nothing
        /// replaced the token since.
        var baseVersion: UInt64
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
    /// An operation that timed out but whose success may still be adopted.
    private var abandoned: InFlight?

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
        if case .busy(var inFlight) = phase {
            // While a token is being replaced, requests wait and go out with the new one
            // only: the old one may be the very token the server just rejected.
            inFlight.waiters.append(waiter)
            phase = .busy(inFlight)
            return Effects()
        }
        if let token {
            let validity = token.lifetime.map { min(minimumValidity, max(0, $0) / 2) } ?? minimumValidity
            if !token.expires(within: validity, now: now) { return use(waiter, token) }
        }
        if let token, token.refreshToken == nil, !canAcquire, !token.expires(within: 0, now: now) {
            // Nothing can renew it early; it is still valid, so use it to the end.
            return use(waiter, token)
        }
        return startRenewal(for: waiter, now: now)
    }

    /// A request was rejected with `staleAccessToken` (nil if it carried none).
    mutating func requestRefresh(waiter: WaiterID, rejecting staleAccessToken: String?, now: Date) -> Effects {
        if phase == .expired { return fail(waiter, .sessionExpired) }
        if let token, token.accessToken != staleAccessToken {
            // Someone refreshed since that request left: replay with the current token.
            return use(waiter, token)
        }
        if case .busy(var inFlight) = phase {
            inFlight.waiters.append(waiter)
            phase = .busy(inFlight)
            return Effects()
        }
        return startRenewal(for: waiter, now: now)
    }

    private mutating func startRenewal(for waiter: WaiterID, now: Date) -> Effects {
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
            refreshStarts.removeAll { now.timeIntervalSince($0) >= window.interval }
            if refreshStarts.count >= window.maximumAttempts { return fail(waiter, .excessiveRefresh) }
            refreshStarts.append(now)
        }
        let id = nextOperationID
        nextOperationID += 1
        phase = .busy(InFlight(id: id, operation: operation, waiters: [waiter], baseVersion: version))
        var effects = Effects()
        effects.start = (id, operation)
        return effects
    }

    // MARK: Operation results

    /// The operation `id` ended. A success is persisted first (``persisted(_:succeeded:)``
    /// then resumes the waiters), so a rotated refresh token is stored before anyone uses it.
    mutating func operationFinished(_ id: OperationID, outcome: Outcome) -> Effects {
        guard case .busy(let inFlight) = phase, inFlight.id == id else {
            return lateOperationFinished(id, outcome: outcome)
        }
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
    mutating func persisted(_ id: OperationID, token newToken: OAuthToken, succeeded: Bool) -> Effects {
        if case .busy(let inFlight) = phase, inFlight.id == id {
            guard succeeded else { return finishTransient(inFlight) }
            adopt(newToken)
            phase = .idle
            var effects = Effects()
            effects.resume = inFlight.waiters.map { Resumption(waiter: $0, result: .success(newToken)) }
            effects.events = [inFlight.operation == .acquire ? .acquired : .refreshed]
            return effects
        }
        if let abandoned, abandoned.id == id, succeeded {
            self.abandoned = nil
            adopt(newToken)
            return Effects(events: [abandoned.operation == .acquire ? .acquired : .refreshed])
        }
        return Effects()
    }

    /// An operation that had timed out (or was superseded) finished anyway.
    private mutating func lateOperationFinished(_ id: OperationID, outcome: Outcome) -> Effects {
        // Adopt a late success only if nothing changed meanwhile: with rotating refresh
        // tokens, throwing it away would leave only a refresh token the server has already
        // replaced.
        guard let abandoned, abandoned.id == id, phase == .idle, version == abandoned.baseVersion,
            case .success(let newToken) = outcome
        else {
            if abandoned?.id == id { self.abandoned = nil }
            return Effects()
        }
        return Effects(persist: .save(merged(newToken, replacing: abandoned.operation)))
    }

    /// The operation `id` took longer than the session's time-out: its waiters fail and the
    /// slot is free for the next attempt.
    mutating func operationTimedOut(_ id: OperationID) -> Effects {
        guard case .busy(let inFlight) = phase, inFlight.id == id else { return Effects() }
        // The operation keeps running: its answer may still be adopted.
        abandoned = inFlight
        return finishTransient(inFlight)
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
        abandoned = nil
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
        abandoned = nil
        return effects
    }

    // MARK: Helpers

    /// Ends the session: token cleared, `.sessionExpired` emitted once, fail fast from now.
    private mutating func expire() -> Effects {
        let alreadyExpired = phase == .expired
        token = nil
        version += 1
        phase = .expired
        abandoned = nil
        return Effects(persist: .clear, events: alreadyExpired ? [] : [.sessionExpired])
    }

    private mutating func adopt(_ newToken: OAuthToken) {
        token = newToken
        version += 1
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
