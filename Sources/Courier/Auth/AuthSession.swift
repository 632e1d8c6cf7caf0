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
/// Sessions that share a store — two in one process, or one in each of several processes on
/// the same ``FileTokenStore`` file — behave as one session, with no code of yours: before it
/// refreshes, a session takes the store's lease and reads the store again, and uses the token
/// another session already stored instead of refreshing; before each request it notices a
/// token another session stored; and it never deletes a token another session wrote (see
/// <doc:SharingSessionsBetweenProcesses>).
///
/// The refresh closure reports through what it throws. ``AuthenticationError/sessionExpired``,
/// or a ``CourierError`` carrying a token endpoint's answer that the session's
/// ``SessionEndingRule`` says is a dead refresh token (by default OAuth's rule: see
/// <doc:TokenRefresh#When-a-failed-refresh-ends-the-session>), ends the session: the token is
/// cleared from the store (if it still holds the rejected one), ``AuthEvent/sessionExpired``
/// is emitted once, ``sessionExpiry`` says why, and requests fail fast until ``signIn(_:)``.
/// Any other error (network, time-out, 5xx, an answer from another origin after a redirect,
/// an HTML error page) fails the waiting requests with
/// ``AuthenticationError/refreshFailed(_:)`` and keeps the stored refresh token for the next
/// try.
///
/// A new token that the store refuses to write (a full disk, a locked Keychain) is not
/// dropped: the server may have retired the refresh token it replaced. The session uses it
/// from memory, reports the failed write (``unstoredTokenError``, ``storageEvents``), and
/// writes it (before each request, and from a retry task of its own) as soon as the store
/// accepts writes. Until then it keeps the store's lease, so that sessions sharing the store
/// wait for the token rather than refresh with the retired one the store still holds.
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

    private nonisolated let coordinator: any TokenStoreCoordinator
    /// The session's DPoP signing, when it was made with `dpop:`; `nil` for a bearer session.
    package nonisolated let dpop: DPoPSigner?
    private nonisolated let canAcquire: Bool
    private nonisolated let runner: OperationRunner
    private nonisolated let now: @Sendable () -> Date
    /// How long a refresh may take before its waiters fail, in seconds, counted from when
    /// its refresh closure was called (or from when a waiter began to wait, if that was later).
    public nonisolated let refreshTimeout: TimeInterval
    /// How long, in seconds, a refresh (or acquire) closure may run before the session gives
    /// up on it: it is cancelled, its waiters fail with ``RefreshAbandoned``, and a later
    /// request may refresh again.
    public nonisolated let abandonRefreshAfter: TimeInterval
    private nonisolated let broadcaster = AuthEventBroadcaster<AuthEvent.Occurrence>()
    private nonisolated let storageBroadcaster = AuthEventBroadcaster<TokenStorageEvent>()
    /// The last failed write of the token kept in memory; `nil` once it is stored.
    private nonisolated let unstoredError = Locked<TokenNotStored?>(nil)
    /// The store's lease, kept while the session's token is not stored: the store still holds
    /// the token it replaced, whose refresh token the server retired, and no other session may
    /// refresh with it. Released once the token is written (or replaced: a sign-in, a
    /// sign-out, the end of the session), or when the session goes away.
    private nonisolated let keptLease = Locked<(any TokenLease)?>(nil)
    /// Writes the token kept in memory again and again (0.5 s, then up to 5 s apart) while the
    /// store refuses it, so that it is shared, and the lease freed, even when no request comes.
    private var unstoredRetry: Task<Void, Never>?
    private nonisolated let waiters = TokenWaiters()
    /// The decisions, and the one place that knows whether a renewal is under way: behind a
    /// lock so that ``isRenewing`` reads it without a hop to the actor. Only the actor
    /// changes it.
    private nonisolated let state: Locked<StateMachine>

    private var operations: [StateMachine.OperationID: Task<Void, Never>] = [:]
    private var progress: [StateMachine.OperationID: OperationProgress] = [:]
    private var timeouts: [StateMachine.OperationID: Task<Void, Never>] = [:]
    /// What the store threw when the session first read it; `nil` until then, and after a
    /// read that worked.
    private var loadError: (any Error)?
    /// Why the store's last read failed, while no read since worked (nor a sign-in or
    /// sign-out replaced what it holds): what ``signInState`` reports as
    /// ``SignInState/unknown(_:)`` when the session has no token.
    private var readFailure: (any Error)?
    /// Whether the session has read the store (or replaced what it holds): it does so on
    /// first use, not when it is created, since a coordinator may have to wait.
    private var isLoaded = false
    /// Counts the changes this session makes to its token outside the state machine's
    /// operations (the first load, a sign-in or sign-out, a token adopted from the store):
    /// a read of the store that suspended is adopted only if none happened meanwhile.
    private var epoch: UInt64 = 0

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - store: where the token is kept; it is read when the session is first used (the
    ///     first request, ``validToken(minimumValidity:)``, ``token``, ``needsSignIn``…),
    ///     not here, since its coordinator may have to wait. Sessions sharing a store (or
    ///     ``FileTokenStore``s of one file) coordinate through its ``TokenStore/coordinator``.
    ///   - refresh: calls the token endpoint with the current token's refresh token.
    ///   - acquire: gets a first token with no user action, when there is none (or none that
    ///     can be refreshed); `nil` means a sign-in is needed.
    ///   - now: the clock that decides expiry (tests drive it).
    ///   - refreshWindow: at most this many refreshes after the server rejected a fresh token
    ///     (one in the first half of its lifetime) in this interval, then
    ///     ``AuthenticationError/excessiveRefresh``; scheduled refreshes never count. `nil`
    ///     turns the guard off.
    ///   - refreshTimeout: seconds after which the requests waiting for a refresh fail with
    ///     ``AuthenticationError/refreshFailed(_:)`` (``RefreshTimeout``). The refresh itself
    ///     goes on: its refresh token has reached the server, so it is never sent a second
    ///     time while it is in flight. Later requests wait for it (each round of them for at
    ///     most `refreshTimeout` again) and its answer is stored when it comes. It also bounds
    ///     the wait for another session's renewal (``TokenLeaseTimeout``).
    ///     It counts from when the refresh closure was called (or from when a request began
    ///     to wait, if that was later), so that a busy machine's delay in running the refresh
    ///     does not count, and it never fails waiters whose refresh closure has returned.
    ///     A negative time-out fails waiters at once, `.infinity` never; NaN counts as 30.
    ///     A request of a ``RefreshableProvider`` does not fail on it: it waits for the same
    ///     renewal again, within its own time-out (`URLRequest.timeoutInterval`), and fails with
    ///     `URLError(.timedOut)` once that has passed.
    ///   - abandonRefreshAfter: seconds after which a refresh closure that has not returned is
    ///     cancelled and a later request may refresh again; `nil` (the default) means
    ///     `max(120, 4 × refreshTimeout)`. Keep it long enough that the abandoned request has
    ///     certainly failed (URLSession gives up on a silent request after 60 seconds): a
    ///     server that answers it late would see that refresh token a second time. Never less
    ///     than `refreshTimeout`.
    ///   - sessionEndingRule: which answers of the token endpoint, carried by what the refresh
    ///     closure throws, mean the refresh token is dead and end the session; OAuth's rule by
    ///     default (see <doc:TokenRefresh#When-a-failed-refresh-ends-the-session>). A backend
    ///     with an error envelope of its own passes ``SessionEndingRule/custom(_:)``.
    ///   - dpop: makes the session sender-constrained (DPoP, RFC 9449) with keys from this
    ///     factory: each sign-in (``signIn(with:)``) and each first token from
    ///     `acquire` gets a new key, kept with the token in the store (``OAuthToken/dpopKey``)
    ///     so that every process sharing the store signs with it; every request signed with a
    ///     DPoP-bound token carries a proof, and so does every token request sent through a
    ///     Courier provider from the refresh and acquire closures. `nil` (the default): a
    ///     bearer session. See <doc:SenderConstrainedTokens>.
    public init(
        store: any TokenStore = InMemoryTokenStore(),
        // Inheriting the caller's isolation is what lets an app's closure, written in
        // main-actor code, use the app's main-actor targets (as `Task.init` does).
        @_inheritActorContext refresh: @escaping RefreshClosure,
        @_inheritActorContext acquire: AcquireClosure? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        refreshWindow: RefreshWindow? = RefreshWindow(),
        refreshTimeout: TimeInterval = 30,
        abandonRefreshAfter: TimeInterval? = nil,
        sessionEndingRule: SessionEndingRule = .oauth,
        dpop: (any DPoPKeyFactory)? = nil
    ) {
        let signer = dpop.map(DPoPSigner.init(factory:))
        self.dpop = signer
        // A store without a coordinator is this session's alone.
        let coordinator = store.coordinator ?? InProcessTokenCoordinator(store: store)
        self.coordinator = coordinator
        self.canAcquire = acquire != nil
        self.now = now
        // NaN would mean "time out at once"; it is a mistake, so it gets the default.
        let timeout = refreshTimeout.isNaN ? 30 : refreshTimeout
        self.refreshTimeout = timeout
        let abandon = abandonRefreshAfter.flatMap { $0.isNaN ? nil : $0 } ?? max(120, 4 * timeout)
        self.abandonRefreshAfter = max(abandon, timeout)
        self.runner = OperationRunner(
            coordinator: coordinator, refreshClosure: Self.judging(refresh, by: sessionEndingRule),
            acquireClosure: acquire, dpop: signer, now: now,
            refreshTimeout: timeout, abandonRefreshAfter: max(abandon, timeout))
        self.state = Locked(StateMachine(token: nil, window: refreshWindow, canAcquire: acquire != nil))
    }

    deinit {
        // The token kept in memory goes with the session: the others may refresh again.
        if let lease = keptLease.withValue({ $0 }) { Task { await lease.release() } }
        unstoredRetry?.cancel()
    }

    /// A new stream of the session's events from now on (earlier events are not replayed).
    /// Each access subscribes a new listener; every listener gets every event.
    ///
    /// A session that adopts what another session sharing its store did emits the same
    /// event: ``AuthEvent/refreshed`` for a token another session refreshed,
    /// ``AuthEvent/signedIn`` and ``AuthEvent/signedOut`` for another session's sign-in and
    /// sign-out, ``AuthEvent/acquired`` for a first token another session acquired (also when
    /// that token is what this session finds as it first reads the store),
    /// ``AuthEvent/sessionExpired`` when another session's refresh token was rejected.
    public nonisolated var events: AsyncStream<AuthEvent> {
        broadcaster.subscribeToEvents()
    }

    /// A new stream of the session's events from now on, each with the session that caused
    /// it: ``AuthEvent/Source/thisSession``, or ``AuthEvent/Source/anotherSession`` for what
    /// this session adopted from another sharing its store (a token another process
    /// refreshed, say). It delivers the events ``events`` delivers, in the same order.
    ///
    /// ```swift
    /// for await occurrence in session.eventOccurrences where occurrence.event == .refreshed {
    ///     metrics.count(occurrence.source == .thisSession ? "refresh.here" : "refresh.elsewhere")
    /// }
    /// ```
    public nonisolated var eventOccurrences: AsyncStream<AuthEvent.Occurrence> {
        broadcaster.subscribe()
    }

    /// A new stream of what happens to a token the store could not write, from now on:
    /// ``TokenStorageEvent/writeFailed(_:)`` when a renewed token could not be stored (the
    /// session keeps it in memory and uses it), ``TokenStorageEvent/written`` once it is.
    public nonisolated var storageEvents: AsyncStream<TokenStorageEvent> {
        storageBroadcaster.subscribe()
    }

    /// Why the current token is not stored, while it is kept in memory only (a full disk, a
    /// locked Keychain): the session writes it before its next request, as soon as the store
    /// accepts writes. `nil` when the token is stored.
    public nonisolated var unstoredTokenError: TokenNotStored? {
        let isUnstored = state.withValue { $0.unstored != nil }
        return isUnstored ? unstoredError.withValue { $0 } : nil
    }

    /// The current token, if any (after reading a newer one that another session stored).
    ///
    /// When the store cannot be reached, the token the session has in memory.
    public var token: OAuthToken? {
        get async {
            _ = await syncWithStore()
            return state.withValue { $0.token }
        }
    }

    /// Whether the refresh token was rejected and the app must sign in again.
    public var isSessionExpired: Bool {
        get async {
            _ = await syncWithStore()
            return state.withValue { $0.expiry != nil }
        }
    }

    /// Why the session ended, while it is over (``isSessionExpired``): the token request that
    /// was rejected, its status and the server's OAuth `error` and `error_description`, never
    /// a token. `nil` while the session is alive.
    public nonisolated var sessionExpiry: SessionExpiry? {
        state.withValue { $0.expiry }
    }

    /// Whether requests cannot be signed until the user signs in: there is no token and no
    /// `acquire` closure to get one (a first launch, after ``signOut()`` here or in another
    /// process sharing the store, or a stored token that cannot be sent — see
    /// ``tokenLoadError``), or the session expired.
    ///
    /// `false` while the store cannot be read at all (a database down at start-up): that says
    /// nothing about the user, and the token may be there once it is back. ``signInState``
    /// tells that case apart (``SignInState/unknown(_:)``).
    ///
    /// Read it at start-up to show the login screen at once rather than after a failed
    /// request. A stored token that is expired but refreshable does not need a sign-in: the
    /// first request refreshes it.
    ///
    /// ```swift
    /// if await session.needsSignIn { await showLoginScreen() }
    /// ```
    public var needsSignIn: Bool {
        get async { await signInState == .needsSignIn }
    }

    /// Whether the session has a token, needs a sign-in, or cannot tell yet because its store
    /// could not be read (a database that is down at start-up, a Keychain still locked): see
    /// ``SignInState``. Reads the store first, as ``needsSignIn`` does.
    ///
    /// ```swift
    /// switch await session.signInState {
    /// case .signedIn: showHome()
    /// case .needsSignIn: showLoginScreen()
    /// case .unknown(let error): showRetry(because: error)  // the store will be read again
    /// }
    /// ```
    public var signInState: SignInState {
        get async {
            _ = await syncWithStore()
            let canAcquire = self.canAcquire
            let (expired, hasToken) = state.withValue { ($0.expiry != nil, $0.token != nil) }
            if expired { return .needsSignIn }
            if hasToken || canAcquire { return .signedIn }
            // A store that threw says nothing about the user: only a store that was read (and
            // held no token, or one that cannot be sent) means a sign-in is needed.
            if let readFailure, !SignInState.isUnusableToken(readFailure) { return .unknown(readFailure) }
            return .needsSignIn
        }
    }

    /// What the store threw when the session first read it — a corrupt or unreadable file, a
    /// database that could not be reached — or `nil` if it read (a token, or none stored).
    ///
    /// This is what ``AuthenticationError/storeUnavailable(_:)`` carries on requests made
    /// before the next ``signIn(_:)``, and it stays set afterwards: it describes the start-up.
    /// Use it to tell the user why they must sign in again.
    ///
    /// The session reads the store when it is first used (a request, ``validToken(minimumValidity:)``,
    /// ``token``, ``needsSignIn``, or this property), not when it is created.
    public var tokenLoadError: (any Error)? {
        get async {
            if !isLoaded { await load() }
            return loadError
        }
    }

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
    ///
    /// When the store cannot be reached (its coordinator's
    /// ``TokenStoreCoordinator/currentGeneration()`` throws), a token still valid in memory is
    /// returned: nothing newer can be had, and the server decides. Without one, this throws
    /// ``AuthenticationError/storeUnavailable(_:)`` with the store's reason, and starts no
    /// refresh.
    public func validToken(minimumValidity: TimeInterval = 0) async throws(AuthenticationError) -> OAuthToken {
        if let unreachable = await syncWithStore() {
            let now = now()
            let answer = state.withValue { $0.answerWithoutRenewal(minimumValidity: minimumValidity, now: now) }
            guard let answer else { throw .storeUnavailable(unreachable) }
            return try mapped(answer).get()
        }
        let id = waiters.makeID()
        let now = now()
        let action = state.withValue { $0.requestToken(waiter: id, minimumValidity: minimumValidity, now: now) }
        return try await wait(id, action)
    }

    /// A token to replace `stale`, which the server rejected.
    ///
    /// If the current token is already a different one (another request, or another session
    /// sharing the store, refreshed meanwhile), it is returned without a call; otherwise this
    /// starts or joins the one refresh.
    public func refresh(rejecting stale: OAuthToken?) async throws(AuthenticationError) -> OAuthToken {
        try await refresh(rejectingAccessToken: stale?.accessToken)
    }

    /// A token to replace the access token `stale` that a request carried (`nil` if it
    /// carried none): what ``RefreshableProvider`` knows of a rejected request.
    package func refresh(rejectingAccessToken stale: String?) async throws(AuthenticationError) -> OAuthToken {
        if let unreachable = await syncWithStore() {
            // Only a token other than the rejected one can answer without the store.
            let answer = state.withValue { state -> Result<OAuthToken, StateMachine.Failure>? in
                if state.expiry != nil { return .failure(.sessionExpired) }
                guard !state.isBusy, let token = state.token, token.accessToken != stale else { return nil }
                return .success(token)
            }
            guard let answer else { throw .storeUnavailable(unreachable) }
            return try mapped(answer).get()
        }
        let id = waiters.makeID()
        let now = now()
        let action = state.withValue { $0.requestRefresh(waiter: id, rejecting: stale, now: now) }
        return try await wait(id, action)
    }

    /// Stores `token` and makes it current. Requests waiting for a refresh get it; a
    /// refresh still in flight is cancelled and its answer ignored. Sessions sharing the store
    /// adopt it before their next request.
    ///
    /// - Throws: ``TokenValidationError`` for a token that cannot be sent (see
    ///   ``OAuthToken/validate()``), ``DPoPError/tokenNotBound`` for a DPoP-bound token
    ///   without a key the session can restore, ``DPoPError/keyFactoryMissing`` for a
    ///   DPoP-bound token on a session made without `dpop:`, or the store's error; the session
    ///   is then unchanged.
    public func signIn(_ token: OAuthToken) async throws {
        try token.validate()
        if DPoPSigner.isBound(token) {
            // A bound token is useless without its key: refuse it now, not at the first request.
            guard let dpop else { throw DPoPError.keyFactoryMissing }
            do {
                _ = try dpop.builder(for: token)
            } catch {
                throw DPoPError.tokenNotBound
            }
        }
        let generation = try await coordinator.write(token, change: .signedIn, ifGeneration: nil)
        // Whatever the session was loading or adopting meanwhile is older than this.
        isLoaded = true
        epoch &+= 1
        readFailure = nil
        perform(state.withValue { $0.signedIn(token, generation: generation) })
        await releaseKeptLeaseOnceStored()
    }

    /// Signs in with the token `obtain` gets from the token endpoint (an authorization code
    /// exchanged, a password grant…), then stores it as ``signIn(_:)`` with a token does.
    ///
    /// On a DPoP session (`dpop:`) the sign-in gets a new key: every request `obtain` sends
    /// through a Courier ``Provider`` carries a proof signed with it (answering the token
    /// endpoint's `use_dpop_nonce` once), and a DPoP-bound token that comes back is stored with
    /// that key. On a bearer session it is the same as calling `obtain` and then
    /// ``signIn(_:)`` with a token.
    ///
    /// ```swift
    /// try await session.signIn {
    ///     let response = try await authProvider.request(.exchange(code: code, verifier: verifier))
    ///     return try OAuthToken(response: response)
    /// }
    /// ```
    ///
    /// - Throws: what `obtain` throws, ``DPoPError`` when no key could be made, or what
    ///   ``signIn(_:)`` with a token throws; the session is then unchanged.
    @discardableResult
    public func signIn(
        @_inheritActorContext with obtain: @escaping @isolated(any) @Sendable () async throws -> OAuthToken
    ) async throws -> OAuthToken {
        guard let dpop else {
            let token = try await obtain()
            try await signIn(token)
            return token
        }
        let (builder, data) = try await dpop.newKey()
        var token = try await DPoPTokenRequest.$current.withValue(.init(signer: dpop, builder: builder)) {
            try await obtain()
        }
        token.dpopKey = DPoPSigner.isBound(token) ? data : nil
        try await signIn(token)
        return token
    }

    /// Ends the session because `token`'s DPoP key is lost (``SessionExpiry/Cause/dpopKeyLost``)
    /// — unless the store holds another token by now (another process signed in again), which
    /// is returned. The store is cleared only if it still holds `token`.
    package func endSession(lostKeyOf token: OAuthToken) async throws(AuthenticationError) -> OAuthToken {
        _ = await syncWithStore()
        let id = waiters.makeID()
        let expiry = SessionExpiry(cause: .dpopKeyLost, date: now())
        let action = state.withValue { $0.requestEnd(waiter: id, lostToken: token, expiry: expiry) }
        return try await wait(id, action)
    }

    /// Clears the token from memory and from the store. Waiting requests fail with
    /// ``AuthenticationError/missingCredential``; a refresh still in flight is cancelled and
    /// its answer ignored. Sessions sharing the store are signed out too: their next request
    /// finds no token (``needsSignIn``), and they emit ``AuthEvent/signedOut``.
    ///
    /// - Throws: the store's error (the token is cleared from memory all the same).
    public func signOut() async throws {
        isLoaded = true
        epoch &+= 1
        readFailure = nil
        perform(state.withValue { $0.signedOut() })
        await releaseKeptLeaseOnceStored()
        let generation = try await coordinator.write(nil, change: .signedOut, ifGeneration: nil)
        let epoch = self.epoch
        // Re-checked after the write: a sign-in meanwhile owns the generation now.
        if epoch == self.epoch { state.withValue { $0.note(generation: generation) } }
    }

    // MARK: Waiting before a request is built

    /// Whether a refresh (or acquire) is under way. A hint, read without waiting for the
    /// actor: a renewal may start or end a moment later.
    nonisolated var isRenewing: Bool { state.withValue { $0.isBusy } }

    /// When a refresh (or acquire) is under way, waits for it and returns its outcome — the
    /// token ``validToken(minimumValidity:)`` would have returned, or what it would have
    /// thrown; otherwise returns `nil` at once and starts nothing.
    ///
    /// ``RefreshableProvider`` calls it before it builds a request, so that a request waiting
    /// for a token keeps only its target and these small frames alive, not its pipeline, and
    /// then signs the request with the token it was handed (it does not ask again).
    /// Everything the decision needs (the machine's action) stays in
    /// ``joinRenewal(_:minimumValidity:_:)``, a synchronous function, off the async frames that
    /// wait. Cancellation answers ``AuthenticationError/cancelled`` at once; the renewal goes
    /// on.
    func waitForRenewal(minimumValidity: TimeInterval) async -> TokenHandoff? {
        guard isRenewing else { return nil }
        let id = waiters.makeID()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                joinRenewal(id, minimumValidity: minimumValidity, continuation)
            }
        } onCancel: {
            waiters.cancel(id)
        }
    }

    /// Registers the light waiter `id`, then answers it at once (the renewal ended meanwhile)
    /// or performs what the machine decided. Registered first even for an answer at once, so
    /// that a cancellation that came earlier is consumed by the waiter table as for any waiter.
    @inline(never)
    private func joinRenewal(
        _ id: UInt64, minimumValidity: TimeInterval, _ continuation: TokenWaiters.LightContinuation
    ) {
        let now = now()
        let action = state.withValue { $0.requestToken(waiter: id, minimumValidity: minimumValidity, now: now) }
        waiters.register(id, light: continuation)
        if case .answer(let result) = action {
            waiters.resume(id, with: mapped(result))
        } else {
            perform(action)
        }
    }

    // MARK: Other sessions

    /// Reads the store when the session is first used, and again when another session wrote
    /// it since this one last did: a cheap check (``TokenStoreCoordinator/currentGeneration()``)
    /// before every request. While an operation is in flight it does nothing more: the
    /// operation reads the store itself, under the lease, and requests wait for it anyway.
    ///
    /// Returns why the store could not be reached, when the check threw and no operation is
    /// in flight: the caller answers from memory if it can.
    private func syncWithStore() async -> (any Error)? {
        if !isLoaded { await load() }
        await writeUnstoredToken()
        let current: UInt64?
        do {
            current = try await coordinator.currentGeneration()
        } catch {
            return state.withValue { $0.isBusy } ? nil : error
        }
        guard let current else { return nil }
        let stale = state.withValue { !$0.isBusy && $0.generation != current }
        guard stale else { return nil }
        let epoch = self.epoch
        let stored: StoredToken
        do {
            stored = try await coordinator.checkedRead()
        } catch {
            // Unreadable now (a file half-replaced by hand, say, or a token too long to send):
            // keep the token this session has, and read again after the next write.
            if epoch == self.epoch {
                state.withValue { $0.note(generation: current) }
                readFailure = error
            }
            return nil
        }
        // Re-checked after the read: a sign-in, a sign-out or another check that adopted a
        // token meanwhile is newer than what this read found (the next check reads again).
        guard epoch == self.epoch else { return nil }
        self.epoch &+= 1
        readFailure = nil
        let now = now()
        perform(state.withValue { $0.storeChanged(stored, now: now) })
        await releaseKeptLeaseOnceStored()
        return nil
    }

    /// The first read of the store. Concurrent first uses may each read; the first to come
    /// back is adopted, and so is nothing that a sign-in or sign-out replaced meanwhile.
    private func load() async {
        var stored: StoredToken?
        var failure: (any Error)?
        do {
            stored = try await coordinator.checkedRead()
        } catch {
            failure = error
        }
        var generation = stored?.generation
        if stored == nil { generation = try? await coordinator.currentGeneration() }
        guard !isLoaded else { return }
        isLoaded = true
        epoch &+= 1
        loadError = failure
        readFailure = failure
        let now = now()
        perform(state.withValue { $0.loaded(stored, generation: generation, now: now) })
    }

    /// Writes the token that the store refused before, if any, unless another session wrote
    /// since (then the store is read again and what it holds is adopted). A store that still
    /// refuses it is tried again before the next request: no timer, one try per request.
    private func writeUnstoredToken() async {
        guard
            let (token, unstored) = state.withValue({ state in
                state.unstored.flatMap { unstored in
                    state.isBusy ? nil : state.token.map { ($0, unstored) }
                }
            })
        else { return }
        let written: UInt64?
        do {
            written = try await coordinator.write(token, change: unstored.change, ifGeneration: unstored.over)
        } catch {
            unstoredError.withValue { $0 = TokenNotStored(underlying: error) }
            return
        }
        // Re-checked after the write (`unstoredWritten` does nothing once the token was
        // replaced meanwhile): the write was fenced, so it never overwrote a newer token.
        let wasUnstored = state.withValue { state -> Bool in
            guard state.unstored == unstored, state.token == token else { return false }
            state.unstoredWritten(generation: written)
            return true
        }
        guard wasUnstored else { return }
        unstoredError.withValue { $0 = nil }
        await releaseKeptLeaseOnceStored()
        if written != nil { storageBroadcaster.emit(.written) }
    }

    /// Keeps the lease an operation held when the store refused the token it renewed (see
    /// ``keptLease``), and tries the write again from a task of the session's own until the
    /// store takes it.
    private func keep(_ lease: (any TokenLease)?) async {
        guard let lease else { return }
        guard state.withValue({ $0.unstored != nil }) else {
            await lease.release()
            return
        }
        let previous = keptLease.withValue { kept in
            defer { kept = lease }
            return kept
        }
        await previous?.release()
        guard unstoredRetry == nil else { return }
        unstoredRetry = Task.detached(priority: .utility) { [weak self] in
            var pause = 0.5
            while true {
                guard (try? await Delay.sleep(seconds: pause)) != nil else { return }
                // Weakly held: the retries never keep the session alive.
                guard let goOn = await self?.retryUnstoredWrite(), goOn else { return }
                pause = min(pause * 2, 5)
            }
        }
    }

    /// One retry of the unstored token's write; keeps the lease from expiring meanwhile.
    /// Whether to try again: the token is still not stored.
    private func retryUnstoredWrite() async -> Bool {
        await writeUnstoredToken()
        _ = await keptLease.withValue { $0 }?.isHeld()
        let goOn = state.withValue { $0.unstored != nil }
        if !goOn { unstoredRetry = nil }
        return goOn
    }

    /// Releases the kept lease once the session's token is no longer unstored: written, or
    /// replaced.
    private func releaseKeptLeaseOnceStored() async {
        guard state.withValue({ $0.unstored == nil }) else { return }
        let kept = keptLease.withValue { kept in
            defer { kept = nil }
            return kept
        }
        await kept?.release()
    }

    // MARK: Waiting

    private func wait(_ id: UInt64, _ action: StateMachine.RequestAction) async throws(AuthenticationError)
        -> OAuthToken
    {
        if let answer = immediateAnswer(action) {
            return try answer.get()
        }
        return try await suspend(id, action)
    }

    /// Fast path: the answer when the machine answered the request at once (nothing else to
    /// do, no continuation needed); `nil` otherwise. Not inlined, so that its temporaries stay
    /// off the async frame that every waiting request keeps.
    @inline(never)
    private func immediateAnswer(_ action: StateMachine.RequestAction) -> Result<OAuthToken, AuthenticationError>? {
        guard case .answer(let result) = action else { return nil }
        return mapped(result)
    }

    /// Registers the request `id` as a waiter, then performs `action`, which answers it once
    /// the operation it waits for ends.
    private func suspend(_ id: UInt64, _ action: StateMachine.RequestAction) async throws(AuthenticationError)
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

    private func perform(_ action: StateMachine.RequestAction) {
        switch action {
        case .answer:
            // An answer goes straight back to the one request that asked (see `wait`).
            break
        case .join:
            break
        case .joinAndArmTimeout(let id):
            armTimeout(id)
        case .start(let id, let operation):
            start(id, operation)
        }
    }

    /// `error`: what the operation threw, which the waiters of a failed operation get;
    /// `source`: whether the operation's result is this session's or one it adopted.
    private func perform(_ action: StateMachine.FinishAction, error: (any Error)?, source: AuthEvent.Source) {
        switch action {
        case .ignore:
            // A sign-in or sign-out replaced the session while the operation ran.
            break
        case .succeed(let ids, let token, let event):
            unstoredError.withValue { $0 = nil }
            for id in ids { waiters.resume(id, with: .success(token)) }
            broadcaster.emit(event, source: source)
        case .succeedUnstored(let ids, let token, let event):
            let failure = error as? TokenNotStored ?? TokenNotStored(underlying: error ?? CancellationError())
            unstoredError.withValue { $0 = failure }
            for id in ids { waiters.resume(id, with: .success(token)) }
            broadcaster.emit(event, source: source)
            storageBroadcaster.emit(.writeFailed(failure))
        case .fail(let ids):
            let failure = AuthenticationError.refreshFailed(
                error.map(Self.unjudged) ?? RefreshTimeout(seconds: refreshTimeout))
            for id in ids { waiters.resume(id, with: .failure(failure)) }
            broadcaster.emit(.refreshFailed)
        case .expire(let ids):
            for id in ids { waiters.resume(id, with: .failure(.sessionExpired)) }
            broadcaster.emit(.sessionExpired, source: source)
        case .signOut(let ids):
            let failure = mapped(.failure(.missingCredential))
            for id in ids { waiters.resume(id, with: failure) }
            broadcaster.emit(.signedOut, source: source)
        }
    }

    private func perform(_ action: StateMachine.TimeoutAction) {
        switch action {
        case .ignore:
            break
        case .fail(let ids):
            let failure = AuthenticationError.refreshFailed(RefreshTimeout(seconds: refreshTimeout))
            for id in ids { waiters.resume(id, with: .failure(failure)) }
            broadcaster.emit(.refreshFailed)
        }
    }

    private func perform(_ action: StateMachine.ReplaceAction) {
        let result = mapped(action.result)
        for id in action.waiters { waiters.resume(id, with: result) }
        broadcaster.emit(action.event)
        if let cancelled = action.cancel {
            operations.removeValue(forKey: cancelled)?.cancel()
            progress.removeValue(forKey: cancelled)
            timeouts.removeValue(forKey: cancelled)?.cancel()
        }
    }

    private func perform(_ action: StateMachine.ChangeAction) {
        switch action {
        case .none: break
        // Only a change another session made to the store is noticed here.
        case .emit(let event): broadcaster.emit(event, source: .anotherSession)
        }
    }

    private func mapped(_ result: Result<OAuthToken, StateMachine.Failure>) -> Result<OAuthToken, AuthenticationError> {
        result.mapError { failure in
            switch failure {
            case .missingCredential: (readFailure ?? loadError).map { .storeUnavailable($0) } ?? .missingCredential
            case .sessionExpired: .sessionExpired
            case .excessiveRefresh: .excessiveRefresh
            }
        }
    }

    // MARK: Operations

    private func start(_ id: StateMachine.OperationID, _ operation: StateMachine.Operation) {
        // Detached: the refresh belongs to the session, not to the request that triggered
        // it, and must not inherit its cancellation or task-locals (such as progress). It
        // runs at that request's priority, though: its waiters wait on continuations, which
        // do not raise it, so a refresh started from the main actor would otherwise run below
        // the requests waiting for it.
        let runner = self.runner
        let unstored = state.withValue { $0.unstored }
        // The operation runs under the lease kept for the unstored token, and gives it back
        // if the store refuses its token too.
        let held = keptLease.withValue { kept in
            defer { kept = nil }
            return kept
        }
        let progress = OperationProgress()
        self.progress[id] = progress
        operations[id] = Task.detached(priority: Task.currentPriority) { [weak self] in
            let (outcome, error, kept) = await runner.run(
                operation, progress: progress, unstored: unstored, holding: held)
            // Also for an operation that never called its closure (another session's token
            // adopted, the lease not had, a session ended).
            progress.end()
            if let self {
                await self.operationEnded(id, outcome, error: error, kept: kept)
            } else {
                await kept?.release()
            }
        }
        armTimeout(id)
    }

    /// Fails the operation's current waiters ``refreshTimeout`` seconds after they began to
    /// wait for it, or after its refresh (or acquire) closure was called if that was later
    /// (the operation itself goes on). Once the closure has returned, the waiters are never
    /// timed out: its answer is on its way.
    private func armTimeout(_ id: StateMachine.OperationID) {
        guard let progress = progress[id] else { return }
        let timeout = refreshTimeout
        let armed = ContinuousClock.now
        timeouts.removeValue(forKey: id)?.cancel()
        timeouts[id] = Task.detached(priority: Task.currentPriority) { [weak self] in
            let waitedSince = max(await progress.began(), armed)
            do {
                try await Delay.sleep(seconds: timeout - (ContinuousClock.now - waitedSince).inSeconds)
            } catch {
                return
            }
            guard !progress.hasEnded else { return }
            await self?.operationTimedOut(id)
        }
    }

    private func operationEnded(
        _ id: StateMachine.OperationID, _ outcome: StateMachine.Outcome, error: (any Error)?,
        kept: (any TokenLease)?
    ) async {
        operations.removeValue(forKey: id)
        progress.removeValue(forKey: id)
        timeouts.removeValue(forKey: id)?.cancel()
        let now = now()
        // An adopted outcome is what another session sharing the store stored meanwhile.
        let source: AuthEvent.Source = if case .adopted = outcome { .anotherSession } else { .thisSession }
        // The operation read the store under the lease: what it holds is known again.
        if outcome != .transient { readFailure = nil }
        let (action, written) = state.withValue { state in
            let wasUnstored = state.unstored != nil
            let action = state.operationFinished(id, outcome: outcome, now: now)
            return (action, wasUnstored && state.unstored == nil && state.token != nil)
        }
        perform(action, error: error, source: source)
        await keep(kept)
        await releaseKeptLeaseOnceStored()
        // The operation stored a token over the one kept in memory (it wrote that one first,
        // or a newer one): the store holds the session's token again.
        if written { storageBroadcaster.emit(.written) }
    }

    private func operationTimedOut(_ id: StateMachine.OperationID) {
        timeouts.removeValue(forKey: id)
        perform(state.withValue { $0.operationTimedOut(id) })
    }
}

/// A refresh took longer than the session's `refreshTimeout`.
public struct RefreshTimeout: Error, Sendable, CustomStringConvertible {
    /// The time-out, in seconds.
    public let seconds: TimeInterval

    /// What happened.
    public var description: String { "the token refresh did not finish within \(seconds) seconds" }
}
