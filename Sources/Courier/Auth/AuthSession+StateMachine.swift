import Foundation

extension AuthSession {
    /// The decisions behind ``AuthSession``, with no I/O: every input mutates the state and
    /// returns the one ``Action`` the session must perform.
    ///
    /// Keeping the decisions here, away from tasks and continuations, is what lets them be
    /// tested exhaustively — the duplicate-refresh and stale-credential bugs of other libraries
    /// all lived in code that mixed the two.
    struct StateMachine {
        typealias WaiterID = UInt64
        typealias OperationID = UInt64

        /// What an operation does.
        enum Operation: Equatable {
            /// Call the refresh closure with this token.
            case refresh(OAuthToken)
            /// Call the acquire closure.
            case acquire
        }

        /// Why a request fails without waiting for an operation.
        enum Failure: Error, Equatable {
            case missingCredential
            case sessionExpired
            case excessiveRefresh
        }

        /// How an operation ended, as the session classified the closure's answer.
        enum Outcome: Equatable {
            case success(OAuthToken)
            /// The server rejected the refresh token (`invalid_grant`): the session is over.
            case rejected
            /// Anything that may pass: network, time-out, 5xx, unreadable answer.
            case transient
        }

        /// What the session must do after an input, each step in the order given.
        enum Action: Equatable {
            /// Nothing: the request joined the operation in flight, or the answer is that
            /// of an operation no longer in flight.
            case none
            /// Answer the request that asked, now, without waiting.
            case answer(Result<OAuthToken, Failure>)
            /// The request waits for the operation in flight, which had already outlived its
            /// time-out: start a new time-out for the operation's waiters.
            case armTimeout(OperationID)
            /// The request waits for this new operation: start it, and its time-out.
            case start(OperationID, Operation)
            /// Write this token to the store, then report with
            /// ``persisted(_:token:succeeded:now:)``.
            case persist(OAuthToken)
            /// The operation succeeded: resume the waiters with the token, then emit the event.
            case succeed([WaiterID], OAuthToken, AuthEvent)
            /// The operation failed or timed out: fail the waiters with its error, then emit
            /// ``AuthEvent/refreshFailed``.
            case fail([WaiterID])
            /// The session is over: clear the store, fail the waiters with `sessionExpired`,
            /// then emit ``AuthEvent/sessionExpired``.
            case expire([WaiterID])
            /// The app signed in or out: resume the waiters with `result`, emit the event, then
            /// cancel the operation in flight, if any.
            case replace(AuthEvent, waiters: [WaiterID], result: Result<OAuthToken, Failure>, cancel: OperationID?)
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
        private(set) var phase: Phase = .idle
        private let window: RefreshWindow?
        private let canAcquire: Bool
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
        mutating func requestToken(waiter: WaiterID, minimumValidity: TimeInterval, now: Date) -> Action {
            if phase == .expired { return .answer(.failure(.sessionExpired)) }
            if case .busy = phase {
                // While a token is being replaced, requests wait and go out with the new one
                // only: the old one may be the very token the server just rejected.
                return join(waiter)
            }
            if let token {
                if ignoresExpiry { return .answer(.success(token)) }
                let lifetime = token.lifetime ?? arrivedAt.flatMap { token.expiresAt?.timeIntervalSince($0) }
                // NaN-safe: a non-finite validity counts as no leeway at all.
                var validity = lifetime.map { min(minimumValidity, max(0, $0) / 2) } ?? minimumValidity
                if !validity.isFinite { validity = 0 }
                if !token.expires(within: validity, now: now) { return .answer(.success(token)) }
            }
            if let token, token.refreshToken == nil, !canAcquire, !token.expires(within: 0, now: now) {
                // Nothing can renew it early; it is still valid, so use it to the end.
                return .answer(.success(token))
            }
            return startRenewal(for: waiter, now: now, proactive: true)
        }

        /// A request was rejected with `staleAccessToken` (nil if it carried none).
        mutating func requestRefresh(waiter: WaiterID, rejecting staleAccessToken: String?, now: Date) -> Action {
            if phase == .expired { return .answer(.failure(.sessionExpired)) }
            if let token, token.accessToken != staleAccessToken {
                // Someone refreshed since that request left: replay with the current token.
                return .answer(.success(token))
            }
            if case .busy = phase { return join(waiter) }
            return startRenewal(for: waiter, now: now, proactive: false)
        }

        /// Adds `waiter` to the operation in flight. If that operation already outlived its
        /// time-out, it is still the one to wait for: starting another would send the same
        /// refresh token twice at once, and a server with reuse detection would revoke the
        /// whole session.
        private mutating func join(_ waiter: WaiterID) -> Action {
            guard case .busy(var inFlight) = phase else { return .none }
            inFlight.waiters.append(waiter)
            let action: Action = inFlight.timeoutArmed ? .none : .armTimeout(inFlight.id)
            inFlight.timeoutArmed = true
            phase = .busy(inFlight)
            return action
        }

        /// Starts a refresh (or acquire) for `waiter`. `proactive`: the token has not been
        /// rejected, it only expires soon (or looks expired by this device's clock).
        private mutating func startRenewal(for waiter: WaiterID, now: Date, proactive: Bool) -> Action {
            let operation: Operation
            if let token, token.refreshToken != nil {
                operation = .refresh(token)
            } else if canAcquire {
                operation = .acquire
            } else if token != nil {
                // A token that cannot be renewed and no longer works: only a sign-in helps.
                expire()
                return .expire([waiter])
            } else {
                return .answer(.failure(.missingCredential))
            }
            if let window {
                // A NaN interval would never let a start age out: it counts as the default.
                let interval = window.interval.isNaN ? RefreshWindow().interval : window.interval
                refreshStarts.removeAll { now.timeIntervalSince($0) >= interval }
                if refreshStarts.count >= window.maximumAttempts {
                    // A token the server has not rejected is still worth a try: only the server
                    // knows whether it has expired (a lifetime too short to keep up with, or a
                    // wrong clock, must not lock the user out).
                    if proactive, let token { return .answer(.success(token)) }
                    return .answer(.failure(.excessiveRefresh))
                }
                refreshStarts.append(now)
            }
            let id = nextOperationID
            nextOperationID += 1
            phase = .busy(InFlight(id: id, operation: operation, waiters: [waiter]))
            return .start(id, operation)
        }

        // MARK: Operation results

        /// The operation `id` ended. A success is persisted first (``persisted(_:succeeded:)``
        /// then resumes the waiters), so a rotated refresh token is stored before anyone uses it.
        mutating func operationFinished(_ id: OperationID, outcome: Outcome) -> Action {
            // An operation that is no longer in flight was cancelled by a sign-in or sign-out:
            // its answer must not bring the old session back.
            guard case .busy(let inFlight) = phase, inFlight.id == id else { return .none }
            switch outcome {
            case .success(let newToken):
                return .persist(merged(newToken, replacing: inFlight.operation))
            case .rejected:
                if inFlight.operation == .acquire { return finishTransient(inFlight) }
                expire()
                return .expire(inFlight.waiters)
            case .transient:
                return finishTransient(inFlight)
            }
        }

        /// The store write requested by ``operationFinished(_:outcome:)`` for `id` is done.
        ///
        /// - Parameter now: when the token arrived (`nil`: unknown). A token that arrives
        ///   already expired by this clock has its expiry ignored (see ``ignoresExpiry``).
        mutating func persisted(_ id: OperationID, token newToken: OAuthToken, succeeded: Bool, now: Date? = nil)
            -> Action
        {
            guard case .busy(let inFlight) = phase, inFlight.id == id else { return .none }
            guard succeeded else { return finishTransient(inFlight) }
            adopt(newToken)
            if let now {
                arrivedAt = now
                ignoresExpiry = newToken.expires(within: 0, now: now)
            }
            phase = .idle
            return .succeed(inFlight.waiters, newToken, inFlight.operation == .acquire ? .acquired : .refreshed)
        }

        /// The operation `id` took longer than the session's time-out: its waiters fail, but the
        /// operation stays in flight. Its refresh token has reached the server, so a second
        /// refresh with the same token could look like a stolen token being replayed; later
        /// requests wait for this one, and its answer is adopted when it comes.
        mutating func operationTimedOut(_ id: OperationID) -> Action {
            guard case .busy(var inFlight) = phase, inFlight.id == id, inFlight.timeoutArmed else { return .none }
            let waiters = inFlight.waiters
            inFlight.waiters = []
            inFlight.timeoutArmed = false
            phase = .busy(inFlight)
            return .fail(waiters)
        }

        private mutating func finishTransient(_ inFlight: InFlight) -> Action {
            phase = .idle
            return .fail(inFlight.waiters)
        }

        // MARK: Sign-in and sign-out

        /// The app signed in with `newToken` (already written to the store). Waiters of an
        /// operation in flight get the new token; that operation's late answer is ignored.
        mutating func signedIn(_ newToken: OAuthToken) -> Action {
            let inFlight = operationInFlight
            adopt(newToken)
            phase = .idle
            refreshStarts.removeAll()
            return .replace(
                .signedIn, waiters: inFlight?.waiters ?? [], result: .success(newToken), cancel: inFlight?.id)
        }

        /// The app signed out (the store was cleared). Waiters fail; a late answer is ignored.
        mutating func signedOut() -> Action {
            let inFlight = operationInFlight
            token = nil
            phase = .idle
            return .replace(
                .signedOut, waiters: inFlight?.waiters ?? [], result: .failure(.missingCredential), cancel: inFlight?.id
            )
        }

        // MARK: Helpers

        /// Ends the session: token cleared, fail fast from now. Only ever called from a phase
        /// that is not `.expired`, so the session's `.sessionExpired` event is emitted once.
        private mutating func expire() {
            token = nil
            phase = .expired
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
        }

        /// A token response without `refresh_token` keeps the old one (RFC 6749 §6).
        private func merged(_ newToken: OAuthToken, replacing operation: Operation) -> OAuthToken {
            guard newToken.refreshToken == nil, case .refresh(let old) = operation else { return newToken }
            var result = newToken
            result.refreshToken = old.refreshToken
            return result
        }
    }
}
