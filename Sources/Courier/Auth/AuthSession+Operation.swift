import Foundation

extension AuthSession {
    /// Runs an operation (refresh, acquire, end of session) in a task of the session's own,
    /// under the store's lease, and says how it ended. Holds only what the operation needs, so
    /// the task does not keep the session alive.
    struct OperationRunner: Sendable {
        let coordinator: any TokenStoreCoordinator
        let refreshClosure: RefreshClosure
        let acquireClosure: AcquireClosure?
        /// The session's DPoP signing: token requests from the closures carry its proofs.
        let dpop: DPoPSigner?
        let now: @Sendable () -> Date
        let refreshTimeout: TimeInterval
        let abandonRefreshAfter: TimeInterval

        /// How long the lease lasts if this session never releases it (a process suspended or
        /// stopped while it holds it): longer than the refresh may run, plus the read and the
        /// write around it.
        var leaseDuration: TimeInterval { abandonRefreshAfter + 30 }

        /// Takes the lease, reads the store again, and adopts what another session stored
        /// since; otherwise performs `operation` and stores its result, then releases the
        /// lease. The error is what the waiters of a transient failure get. `progress` learns
        /// when the refresh or acquire closure is called and when it returns: what the
        /// operation's time-out measures.
        ///
        /// `unstored`: the session's token could not be stored (the store is still at that
        /// generation). It is written first; if the store still refuses it, the store counts as
        /// holding it, so the operation goes on with it and never with the token it replaced,
        /// whose refresh token the server may have retired.
        ///
        /// `held`: the lease the session kept since its token could not be stored; the
        /// operation runs under it (taking the lease again would wait for itself), unless it
        /// was lost meanwhile.
        ///
        /// Returns the lease still held when the operation renewed the token but the store
        /// refused it (``StateMachine/Outcome/renewedUnstored(_:over:)``): the store still holds
        /// the token whose refresh token the server retired, so no other session may take the
        /// lease and refresh with it until the session has written its own. The session keeps
        /// it until then. Every other lease is released.
        func run(
            _ operation: StateMachine.Operation, progress: OperationProgress,
            unstored: StateMachine.Unstored? = nil, holding held: (any TokenLease)? = nil
        ) async -> (StateMachine.Outcome, (any Error)?, kept: (any TokenLease)?) {
            // A refresh that lost its lease before its request left (this process was stopped
            // past it) waits for the session that took it over and adopts what it stored.
            var result: (StateMachine.Outcome, (any Error)?) = (.transient, nil)
            var held = held
            for _ in 0..<3 {
                let lease: any TokenLease
                let kept = held
                held = nil
                if let kept, await kept.isHeld() {
                    lease = kept
                } else {
                    // Lost (taken over after it expired): it still holds this process's turn.
                    await kept?.release()
                    do {
                        lease = try await takeLease(progress: progress)
                    } catch {
                        return (.transient, error, nil)
                    }
                }
                result = await run(operation, holding: lease, progress: progress, unstored: unstored)
                if case .renewedUnstored = result.0 { return (result.0, result.1, lease) }
                // Asked only of a failed refresh: a successful one was fenced by its write.
                let lost = if case .transient = result.0 { await !lease.isHeld() } else { false }
                await lease.release()
                guard lost else { return (result.0, result.1, nil) }
            }
            return (result.0, result.1, nil)
        }

        /// Takes the lease at once if it is free. Otherwise another session is renewing the
        /// token: the waiters' time-outs count from now (each request waits for at most
        /// `refreshTimeout`, and later requests join and wait their own), and the operation
        /// waits until the lease is free, or its holder's lease has expired (a holder that
        /// was stopped), rather than failing requests that could be answered a moment later.
        private func takeLease(progress: OperationProgress) async throws -> any TokenLease {
            do {
                return try await coordinator.acquireLease(expiringAfter: leaseDuration, waitingAtMost: 0)
            } catch is TokenLeaseTimeout {
                progress.begin()
                return try await coordinator.acquireLease(expiringAfter: leaseDuration, waitingAtMost: leaseDuration)
            }
        }

        private func run(
            _ operation: StateMachine.Operation, holding lease: any TokenLease, progress: OperationProgress,
            unstored: StateMachine.Unstored?
        ) async -> (StateMachine.Outcome, (any Error)?) {
            var stored: StoredToken
            do {
                stored = try await coordinator.checkedRead()
            } catch {
                return (.transient, error)
            }
            if let unstored, stored.generation == unstored.over, let token = operation.token {
                stored = await storing(token, unstored, over: stored)
            }
            switch operation {
            case .refresh(let token):
                guard Self.holds(stored, token) else { return (.adopted(stored), nil) }
                return await RefreshLeaseGuard.$lease.withValue(lease) {
                    await refresh(stored.token ?? token, over: stored, progress: progress)
                }
            case .acquire(let replacing):
                if stored.token != nil, !(replacing.map { Self.holds(stored, $0) } ?? false) {
                    return (.adopted(stored), nil)
                }
                return await RefreshLeaseGuard.$lease.withValue(lease) {
                    await acquire(over: stored, progress: progress)
                }
            case .end(let token, let expiry):
                guard Self.holds(stored, token) else { return (.adopted(stored), nil) }
                return await end(expiry, over: stored, error: nil)
            }
        }

        /// The store with the session's unstored `token` written, or as if it held it when the
        /// store still refuses writes (nobody else wrote since: it is still at `unstored.over`).
        private func storing(_ token: OAuthToken, _ unstored: StateMachine.Unstored, over stored: StoredToken)
            async -> StoredToken
        {
            if let written = try? await coordinator.write(token, change: unstored.change, ifGeneration: unstored.over) {
                return StoredToken(token: token, generation: written, change: unstored.change)
            }
            return StoredToken(token: token, generation: stored.generation, change: unstored.change)
        }

        /// Whether the store still holds `token`: nobody replaced it since the session read it.
        private static func holds(_ stored: StoredToken, _ token: OAuthToken) -> Bool {
            stored.token.map { StateMachine.sameCredential($0, token) } ?? false
        }

        private func refresh(_ token: OAuthToken, over stored: StoredToken, progress: OperationProgress) async -> (
            StateMachine.Outcome, (any Error)?
        ) {
            let closure = refreshClosure
            let binding: (signing: DPoPTokenRequest.Signing, data: Data)?
            switch await tokenRequestBinding(for: token) {
            case .success(let value): binding = value
            case .failure(let lost) where lost.isNoFactory:
                // Not a lost key: the key is in the store, this session was made without the
                // factory to use it. Nothing is sent, nothing is ended.
                return (.transient, DPoPError.keyFactoryMissing)
            case .failure(let lost):
                return await end(SessionExpiry(cause: .dpopKeyLost, date: now()), over: stored, error: lost)
            }
            let call: @Sendable () async throws -> OAuthToken = {
                try await DPoPTokenRequest.$current.withValue(binding?.signing) { try await closure(token) }
            }
            switch await callAbandoning(call, progress: progress) {
            case .success(let answer):
                var renewed = answer
                if let binding { renewed.dpopKey = DPoPSigner.isBound(renewed) ? binding.data : nil }
                // A token response without `refresh_token` keeps the old one (RFC 6749 §6).
                if renewed.refreshToken == nil { renewed.refreshToken = token.refreshToken }
                guard !renewed.accessToken.isEmpty else {
                    return (.transient, AuthenticationError.invalidTokenResponse)
                }
                return await save(renewed, change: .refreshed, over: stored)
            case .failure(let error):
                switch RefreshFailureClassifier.classify(error, date: now()) {
                case .transient: return (.transient, error)
                case .rejected(let expiry): return await end(expiry, over: stored, error: error)
                }
            }
        }

        private func acquire(over stored: StoredToken, progress: OperationProgress) async -> (
            StateMachine.Outcome, (any Error)?
        ) {
            guard let acquireClosure else { return (.transient, AuthenticationError.missingCredential) }
            // Acquire failures are always transient: there is no refresh token to lose.
            var binding: (signing: DPoPTokenRequest.Signing, data: Data)?
            if let dpop {
                // A first token is bound to a new key, as a sign-in's is.
                do {
                    let (builder, data) = try await dpop.newKey()
                    binding = (DPoPTokenRequest.Signing(signer: dpop, builder: builder), data)
                } catch {
                    return (.transient, error)
                }
            }
            let call: @Sendable () async throws -> OAuthToken = { [binding] in
                try await DPoPTokenRequest.$current.withValue(binding?.signing) { try await acquireClosure() }
            }
            switch await callAbandoning(call, progress: progress) {
            case .success(let token) where token.accessToken.isEmpty:
                return (.transient, AuthenticationError.invalidTokenResponse)
            case .success(var token):
                if let binding { token.dpopKey = DPoPSigner.isBound(token) ? binding.data : nil }
                return await save(token, change: .acquired, over: stored)
            case .failure(let error):
                return (.transient, error)
            }
        }

        /// The key the token requests of a refresh of `token` are signed with, and what the
        /// store keeps of it: the key `token` is bound to, or, for a token the server did not
        /// bind (a bearer token), a new one the renewed token may be bound to. `nil` for a
        /// bearer session; a failure when `token` is bound to a key that is lost: its refresh
        /// token is useless without it.
        private func tokenRequestBinding(for token: OAuthToken) async -> Result<
            (signing: DPoPTokenRequest.Signing, data: Data)?, DPoPKeyLost
        > {
            guard let dpop else {
                // A bound token's refresh request needs a proof this session cannot sign.
                return DPoPSigner.isBound(token) ? .failure(.noFactory) : .success(nil)
            }
            guard DPoPSigner.isBound(token) else {
                guard let (builder, data) = try? await dpop.newKey() else { return .success(nil) }
                return .success((DPoPTokenRequest.Signing(signer: dpop, builder: builder), data))
            }
            do {
                let builder = try dpop.builder(for: token)
                // `builder(for:)` refused a token without data.
                return .success((DPoPTokenRequest.Signing(signer: dpop, builder: builder), token.dpopKey ?? Data()))
            } catch {
                return .failure(error)
            }
        }

        /// Stores the new token if nobody wrote since `stored` was read; otherwise adopts what
        /// was written (a session that took the lease after this one's had expired).
        private func save(_ token: OAuthToken, change: TokenChange, over stored: StoredToken) async -> (
            StateMachine.Outcome, (any Error)?
        ) {
            // A token that cannot be sent is never stored: it fails like an unreadable answer.
            if case .failure(let problem) = OAuthToken.checked(token) { return (.transient, problem) }
            do {
                if let generation = try await coordinator.write(token, change: change, ifGeneration: stored.generation)
                {
                    return (.renewed(token, generation: generation), nil)
                }
                return (.adopted(try await coordinator.checkedRead()), nil)
            } catch {
                // The server has issued it, and may have retired the refresh token it replaced:
                // it is the only valid credential there is. It is used from memory, the failed
                // write is reported, and it is written as soon as the store accepts writes.
                return (.renewedUnstored(token, over: stored.generation), TokenNotStored(underlying: error))
            }
        }

        /// Ends the session: clears the store, but only if it still holds the token that was
        /// rejected. When another session stored a different one, that one is adopted and the
        /// session goes on.
        private func end(_ expiry: SessionExpiry, over stored: StoredToken, error: (any Error)?) async -> (
            StateMachine.Outcome, (any Error)?
        ) {
            do {
                if let generation = try await coordinator.write(
                    nil, change: .sessionExpired, ifGeneration: stored.generation)
                {
                    return (.ended(expiry, generation: generation), error)
                }
                return (.adopted(try await coordinator.checkedRead()), nil)
            } catch let storeError {
                // The session is over either way; a store that cannot delete must not keep the
                // user signed in.
                return (.ended(expiry, generation: nil), storeError)
            }
        }

        /// Runs `call`, but gives up on it after ``abandonRefreshAfter`` seconds: it is
        /// cancelled, and the operation fails with ``RefreshAbandoned`` so that a later request
        /// may refresh again. A call that ignores its cancellation keeps running, unheard.
        ///
        /// `progress` is told, from the call's own task, the moment the call begins and the
        /// moment it returns: the refresh time-out then measures the call alone, not the time
        /// a busy machine takes to run the tasks around it.
        private func callAbandoning(
            _ call: @escaping @Sendable () async throws -> OAuthToken, progress: OperationProgress
        ) async -> Result<OAuthToken, any Error> {
            let race = AbandonRace()
            let limit = abandonRefreshAfter
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    race.begin(
                        continuation,
                        call: Task {
                            progress.begin()
                            let result: Result<OAuthToken, any Error>
                            do {
                                result = .success(try await call())
                            } catch {
                                result = .failure(error)
                            }
                            progress.end()
                            race.finish(result)
                        },
                        timer: Task {
                            guard (try? await Delay.sleep(seconds: limit)) != nil else { return }
                            race.finish(.failure(RefreshAbandoned(seconds: limit)))
                        })
                }
            } onCancel: {
                race.cancel()
            }
        }
    }
}

/// The refresh call and its abandonment timer: the first to finish answers, and the other is
/// cancelled.
private final class AbandonRace: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<OAuthToken, any Error>, Never>?
        var early: Result<OAuthToken, any Error>?
        var call: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var cancelled = false
    }

    private let state = Locked(State())

    func begin(
        _ continuation: CheckedContinuation<Result<OAuthToken, any Error>, Never>, call: Task<Void, Never>,
        timer: Task<Void, Never>
    ) {
        let (early, cancelled) = state.withValue { state in
            state.call = call
            state.timer = timer
            if state.early == nil { state.continuation = continuation }
            return (state.early, state.cancelled)
        }
        if cancelled { call.cancel() }
        if let early {
            call.cancel()
            timer.cancel()
            continuation.resume(returning: early)
        }
    }

    func finish(_ result: Result<OAuthToken, any Error>) {
        let (continuation, call, timer) = state.withValue { state in
            guard state.early == nil else {
                return (nil, nil, nil)
                    as (
                        CheckedContinuation<Result<OAuthToken, any Error>, Never>?, Task<Void, Never>?,
                        Task<Void, Never>?
                    )
            }
            state.early = result
            defer { state.continuation = nil }
            return (state.continuation, state.call, state.timer)
        }
        guard let continuation else { return }
        call?.cancel()
        timer?.cancel()
        continuation.resume(returning: result)
    }

    /// The operation was cancelled (a sign-in or sign-out replaced the session): so is the call.
    func cancel() {
        let call = state.withValue { state in
            state.cancelled = true
            return state.call
        }
        call?.cancel()
    }
}

/// A refresh (or acquire) closure that did not return within the session's
/// ``AuthSession/abandonRefreshAfter``: the session cancelled it, and a later request may
/// refresh again.
public struct RefreshAbandoned: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The limit, in seconds.
    public let seconds: TimeInterval

    /// Creates the error.
    public init(seconds: TimeInterval) {
        self.seconds = seconds
    }

    /// What happened.
    public var description: String {
        "the token refresh did not return within \(seconds) seconds; it was cancelled, and the next request may refresh again"
    }

    /// The ``description`` as a sentence.
    public var errorDescription: String? { ErrorText.sentence(description) }
}

extension AuthSession.StateMachine.Operation {
    /// The token the operation replaces (or ends), if any.
    var token: OAuthToken? {
        switch self {
        case .refresh(let token), .end(let token, _): token
        case .acquire(let replacing): replacing
        }
    }
}
