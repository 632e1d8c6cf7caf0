import Foundation

/// Owns an access token's life: loads and stores it, hands it to requests, refreshes it once
/// when it expires or is rejected, and tells the app when the session is over.
///
/// ```swift
/// let session = AuthSession(
///     store: FileTokenStore(url: tokenFile),
///     refresh: { token in
///         // Call the token endpoint through a plain Provider, never the refreshable one.
///         guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
///         let response = try await authProvider.request(.refresh(token: refreshToken))
///         return try OAuthToken(response: response)
///     })
/// ```
///
/// Several providers may share one session. Everything is single-flight: however many
/// requests need a new token at once, the refresh (or acquire) closure runs once and they all
/// get its result. The refresh runs in a task the session owns, so cancelling the request
/// that triggered it cancels that request only.
///
/// The refresh closure reports through what it throws. A ``CourierError`` whose response
/// is 401, or 400 with `invalid_grant`, `invalid_client` or `unauthorized_client` (or
/// without an OAuth error code), or ``AuthenticationError/sessionExpired``, ends the session:
/// the token is cleared from the store, ``AuthEvent/sessionExpired`` is emitted once, and
/// requests fail fast until ``signIn(_:)``. Any other error (network, time-out, 5xx, an
/// unreadable answer, a store write) fails the waiting requests with
/// ``AuthenticationError/refreshFailed(_:)`` and keeps the stored refresh token for the next
/// try.
public actor AuthSession {
    /// Calls the token endpoint with the given token's refresh token and returns the new
    /// token.
    ///
    /// The closure runs where it was written: one written in main-actor code (the default in
    /// a new app target) runs on the main actor, so it may use the app's main-actor targets
    /// and providers; one written outside any actor runs on the global executor. The session
    /// awaits it from a task of its own.
    public typealias RefreshClosure = @isolated(any) @Sendable (OAuthToken) async throws -> OAuthToken
    /// Gets a first token with no user action (anonymous or client-credentials sessions). It
    /// runs where it was written, as ``RefreshClosure`` does.
    public typealias AcquireClosure = @isolated(any) @Sendable () async throws -> OAuthToken

    private nonisolated let store: any TokenStore
    private nonisolated let refreshClosure: RefreshClosure
    private nonisolated let acquireClosure: AcquireClosure?
    private nonisolated let now: @Sendable () -> Date
    /// How long a refresh may take before its waiters fail, in seconds.
    public nonisolated let refreshTimeout: TimeInterval
    private nonisolated let broadcaster = AuthEventBroadcaster()
    private nonisolated let waiters = TokenWaiters()
    /// Whether a refresh or acquire is under way, readable without a hop to the actor;
    /// written after every action (`perform`).
    private nonisolated let renewing = Locked(false)

    private var machine: StateMachine
    private var operations: [StateMachine.OperationID: Task<Void, Never>] = [:]
    private var timeouts: [StateMachine.OperationID: Task<Void, Never>] = [:]
    private nonisolated let loadError: (any Error)?

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - store: where the token is kept; it is loaded now.
    ///   - refresh: calls the token endpoint with the current token's refresh token.
    ///   - acquire: gets a first token with no user action, when there is none (or none that
    ///     can be refreshed); `nil` means a sign-in is needed.
    ///   - now: the clock that decides expiry (tests drive it).
    ///   - refreshWindow: at most this many refreshes in this interval, then
    ///     ``AuthenticationError/excessiveRefresh``; `nil` turns the guard off.
    ///   - refreshTimeout: seconds after which the requests waiting for a refresh fail with
    ///     ``AuthenticationError/refreshFailed(_:)`` (``RefreshTimeout``). The refresh itself
    ///     goes on: its refresh token has reached the server, so it is never sent a second
    ///     time while it is in flight. Later requests wait for it (each round of them for at
    ///     most `refreshTimeout` again) and its answer is stored when it comes.
    ///     A negative time-out fails waiters at once, `.infinity` never; NaN counts as 30.
    public init(
        store: any TokenStore = InMemoryTokenStore(),
        // Inheriting the caller's isolation is what lets an app's closure, written in
        // main-actor code, use the app's main-actor targets (as `Task.init` does).
        @_inheritActorContext refresh: @escaping RefreshClosure,
        @_inheritActorContext acquire: AcquireClosure? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        refreshWindow: RefreshWindow? = RefreshWindow(),
        refreshTimeout: TimeInterval = 30
    ) {
        self.store = store
        self.refreshClosure = refresh
        self.acquireClosure = acquire
        self.now = now
        // NaN would mean "time out at once"; it is a mistake, so it gets the default.
        self.refreshTimeout = refreshTimeout.isNaN ? 30 : refreshTimeout
        var loaded: OAuthToken?
        var loadError: (any Error)?
        do {
            loaded = try store.load()
        } catch {
            loadError = error
        }
        self.loadError = loadError
        self.machine = StateMachine(token: loaded, window: refreshWindow, canAcquire: acquire != nil)
    }

    /// A new stream of the session's events from now on (earlier events are not replayed).
    /// Each access subscribes a new listener; every listener gets every event.
    public nonisolated var events: AsyncStream<AuthEvent> {
        broadcaster.subscribe()
    }

    /// The current token, if any.
    public var token: OAuthToken? { machine.token }

    /// Whether the refresh token was rejected and the app must sign in again.
    public var isSessionExpired: Bool { machine.phase == .expired }

    /// Whether requests cannot be signed until the user signs in: there is no token and no
    /// `acquire` closure to get one (a first launch, after ``signOut()``, or a stored token
    /// that could not be loaded — see ``tokenLoadError``), or the session expired.
    ///
    /// Read it at start-up to show the login screen at once rather than after a failed
    /// request. A stored token that is expired but refreshable does not need a sign-in: the
    /// first request refreshes it.
    ///
    /// ```swift
    /// if await session.needsSignIn { await showLoginScreen() }
    /// ```
    public var needsSignIn: Bool {
        isSessionExpired || (machine.token == nil && acquireClosure == nil)
    }

    /// What the store threw when the session loaded the token at creation — a corrupt or
    /// unreadable file — or `nil` if it loaded (a token, or none stored).
    ///
    /// This is what ``AuthenticationError/storeUnavailable(_:)`` carries on requests made
    /// before the next ``signIn(_:)``, and it stays set afterwards: it describes the start-up.
    /// Use it to tell the user why they must sign in again.
    public nonisolated var tokenLoadError: (any Error)? { loadError }

    /// A token valid for at least `minimumValidity` seconds: the stored one, or a new one
    /// after a refresh (or acquire) that concurrent callers share.
    ///
    /// `minimumValidity` is capped at half the token's lifetime, so a token that lives only
    /// a few seconds is refreshed once and then used, not refreshed on every request.
    ///
    /// - Throws: ``AuthenticationError/sessionExpired``,
    ///   ``AuthenticationError/missingCredential``, ``AuthenticationError/refreshFailed(_:)``,
    ///   ``AuthenticationError/excessiveRefresh``, or ``AuthenticationError/cancelled`` when
    ///   the calling task is cancelled.
    public func validToken(minimumValidity: TimeInterval = 0) async throws(AuthenticationError) -> OAuthToken {
        let id = waiters.makeID()
        let action = machine.requestToken(waiter: id, minimumValidity: minimumValidity, now: now())
        return try await wait(id, action)
    }

    /// A token to replace `stale`, which the server rejected.
    ///
    /// If the current token is already a different one (another request refreshed
    /// meanwhile), it is returned without a call; otherwise this starts or joins the one
    /// refresh.
    public func refresh(rejecting stale: OAuthToken?) async throws(AuthenticationError) -> OAuthToken {
        try await refresh(rejectingAccessToken: stale?.accessToken)
    }

    /// A token to replace the access token `stale` that a request carried (`nil` if it
    /// carried none): what ``RefreshableProvider`` knows of a rejected request.
    package func refresh(rejectingAccessToken stale: String?) async throws(AuthenticationError) -> OAuthToken {
        let id = waiters.makeID()
        let action = machine.requestRefresh(waiter: id, rejecting: stale, now: now())
        return try await wait(id, action)
    }

    /// Stores `token` and makes it current. Requests waiting for a refresh get it; a
    /// refresh still in flight is cancelled and its answer ignored.
    ///
    /// - Throws: the store's error; the session is then unchanged.
    public func signIn(_ token: OAuthToken) throws {
        try store.save(token)
        perform(machine.signedIn(token))
    }

    /// Clears the token from memory and from the store. Waiting requests fail with
    /// ``AuthenticationError/missingCredential``; a refresh still in flight is cancelled and
    /// its answer ignored.
    ///
    /// - Throws: the store's error (the token is cleared from memory all the same).
    public func signOut() throws {
        perform(machine.signedOut())
        try store.save(nil)
    }

    // MARK: Waiting before a request is built

    /// Whether a refresh (or acquire) is under way. A hint, read without waiting for the
    /// actor: a renewal may start or end a moment later.
    nonisolated var isRenewing: Bool { renewing.current }

    /// When a refresh (or acquire) is under way, waits for it and returns what
    /// ``validToken(minimumValidity:)`` would have; otherwise returns `nil` at once and
    /// starts nothing.
    ///
    /// ``RefreshableProvider`` calls it before it builds a request, so that a request waiting
    /// for a token keeps only its target and this frame alive (about a kilobyte over a bare
    /// suspended task), not its pipeline. Cancellation answers ``AuthenticationError/cancelled``
    /// at once; the renewal goes on.
    func tokenAfterRenewal(minimumValidity: TimeInterval) async -> Result<OAuthToken, AuthenticationError>? {
        guard case .busy = machine.phase else { return nil }
        let id = waiters.makeID()
        let action = machine.requestToken(waiter: id, minimumValidity: minimumValidity, now: now())
        if let answer = immediateAnswer(action) { return answer }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                waiters.register(id, light: continuation)
                perform(action)
            }
        } onCancel: {
            waiters.cancel(id)
        }
    }

    // MARK: Waiting

    private func wait(_ id: UInt64, _ action: StateMachine.Action) async throws(AuthenticationError) -> OAuthToken {
        if let answer = immediateAnswer(action) {
            return try answer.get()
        }
        return try await suspend(id, action)
    }

    /// Fast path: the answer when the machine answered the request at once (nothing else to
    /// do, no continuation needed); `nil` otherwise. Not inlined, so that its temporaries stay
    /// off the async frame that every waiting request keeps.
    @inline(never)
    private func immediateAnswer(_ action: StateMachine.Action) -> Result<OAuthToken, AuthenticationError>? {
        guard case .answer(let result) = action else { return nil }
        return mapped(result)
    }

    /// Registers the request `id` as a waiter, then performs `action`, which answers it now
    /// or once the operation it waits for ends.
    private func suspend(_ id: UInt64, _ action: StateMachine.Action) async throws(AuthenticationError)
        -> OAuthToken
    {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    waiters.register(id, continuation)
                    perform(action)
                }
            } onCancel: {
                waiters.cancel(id)
            }
        } catch let error as AuthenticationError {
            throw error
        } catch {
            throw .refreshFailed(error)
        }
    }

    // MARK: Performing actions

    /// Performs what the machine decided. `operationError`: what the operation threw (or its
    /// time-out), which the waiters of a failed operation get.
    private func perform(_ action: StateMachine.Action, operationError: (any Error)? = nil) {
        defer {
            let busy = if case .busy = machine.phase { true } else { false }
            renewing.withLock { $0 = busy }
        }
        switch action {
        case .none, .answer:
            // An answer goes straight back to the one request that asked (see `wait`).
            break
        case .armTimeout(let id):
            armTimeout(id)
        case .start(let id, let operation):
            start(id, operation)
        case .persist:
            // Handled where the operation ends (`operationEnded`), before anyone is resumed.
            break
        case .succeed(let ids, let token, let event):
            for id in ids { waiters.resume(id, with: .success(token)) }
            broadcaster.emit(event)
        case .fail(let ids):
            let error = AuthenticationError.refreshFailed(operationError ?? RefreshTimeout(seconds: refreshTimeout))
            for id in ids { waiters.resume(id, with: .failure(error)) }
            broadcaster.emit(.refreshFailed)
        case .expire(let ids):
            // The session is over either way; a store that cannot delete must not keep the
            // user signed in.
            try? store.save(nil)
            for id in ids { waiters.resume(id, with: .failure(.sessionExpired)) }
            broadcaster.emit(.sessionExpired)
        case .replace(let event, let ids, let result, let cancelled):
            for id in ids { waiters.resume(id, with: mapped(result)) }
            broadcaster.emit(event)
            if let cancelled {
                operations.removeValue(forKey: cancelled)?.cancel()
                timeouts.removeValue(forKey: cancelled)?.cancel()
            }
        }
    }

    private func mapped(_ result: Result<OAuthToken, StateMachine.Failure>) -> Result<OAuthToken, AuthenticationError> {
        result.mapError { failure in
            switch failure {
            case .missingCredential: loadError.map { .storeUnavailable($0) } ?? .missingCredential
            case .sessionExpired: .sessionExpired
            case .excessiveRefresh: .excessiveRefresh
            }
        }
    }

    private func start(_ id: StateMachine.OperationID, _ operation: StateMachine.Operation) {
        // Detached: the refresh belongs to the session, not to the request that triggered
        // it, and must not inherit its cancellation or task-locals (such as progress).
        let refreshClosure = self.refreshClosure
        let acquireClosure = self.acquireClosure
        operations[id] = Task.detached { [weak self] in
            let result: Result<OAuthToken, any Error>
            do {
                switch operation {
                case .refresh(let token): result = .success(try await refreshClosure(token))
                case .acquire:
                    guard let acquireClosure else { throw AuthenticationError.missingCredential }
                    result = .success(try await acquireClosure())
                }
            } catch {
                result = .failure(error)
            }
            await self?.operationEnded(id, result)
        }
        armTimeout(id)
    }

    /// Fails the operation's current waiters after ``refreshTimeout`` (the operation itself
    /// goes on).
    private func armTimeout(_ id: StateMachine.OperationID) {
        let timeout = refreshTimeout
        timeouts.removeValue(forKey: id)?.cancel()
        timeouts[id] = Task.detached { [weak self] in
            do {
                try await Delay.sleep(seconds: timeout)
            } catch {
                return
            }
            await self?.operationTimedOut(id)
        }
    }

    private func operationEnded(_ id: StateMachine.OperationID, _ result: Result<OAuthToken, any Error>) {
        operations.removeValue(forKey: id)
        timeouts.removeValue(forKey: id)?.cancel()
        let outcome: StateMachine.Outcome
        var error: (any Error)?
        switch result {
        case .success(let token) where token.accessToken.isEmpty:
            outcome = .transient
            error = AuthenticationError.invalidTokenResponse
        case .success(let token):
            outcome = .success(token)
        case .failure(let failure):
            error = failure
            outcome = RefreshFailureClassifier.isRejection(failure) ? .rejected : .transient
        }
        var action = machine.operationFinished(id, outcome: outcome)
        if case .persist(let token) = action {
            // Stored before anyone uses it: a rotated refresh token must survive a crash.
            do {
                try store.save(token)
                action = machine.persisted(id, token: token, succeeded: true, now: now())
            } catch let storeError {
                error = storeError
                action = machine.persisted(id, token: token, succeeded: false)
            }
        }
        perform(action, operationError: error)
    }

    private func operationTimedOut(_ id: StateMachine.OperationID) {
        timeouts.removeValue(forKey: id)
        perform(machine.operationTimedOut(id), operationError: RefreshTimeout(seconds: refreshTimeout))
    }
}

/// A refresh took longer than the session's `refreshTimeout`.
public struct RefreshTimeout: Error, Sendable, CustomStringConvertible {
    /// The time-out, in seconds.
    public let seconds: TimeInterval

    /// What happened.
    public var description: String { "the token refresh did not finish within \(seconds) seconds" }
}
