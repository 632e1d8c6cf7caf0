import Foundation

extension AuthSession {
    /// Runs an operation (refresh, acquire, end of session) in a task of the session's own,
    /// under the store's lease, and says how it ended. Holds only what the operation needs, so
    /// the task does not keep the session alive.
    struct OperationRunner: Sendable {
        let coordinator: any TokenStoreCoordinator
        let refreshClosure: RefreshClosure
        let acquireClosure: AcquireClosure?
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
        func run(_ operation: StateMachine.Operation, progress: OperationProgress) async -> (
            StateMachine.Outcome, (any Error)?
        ) {
            let lease: any TokenLease
            do {
                // Waiting for another session is bounded like a refresh: a renewal elsewhere
                // never holds up a request longer than `refreshTimeout`.
                lease = try await coordinator.acquireLease(
                    expiringAfter: leaseDuration, waitingAtMost: refreshTimeout)
            } catch {
                return (.transient, error)
            }
            defer { lease.release() }
            let stored: StoredToken
            do {
                stored = try coordinator.read()
            } catch {
                return (.transient, error)
            }
            switch operation {
            case .refresh(let token):
                guard Self.holds(stored, token) else { return (.adopted(stored), nil) }
                return await refresh(stored.token ?? token, over: stored, progress: progress)
            case .acquire(let replacing):
                if stored.token != nil, !(replacing.map { Self.holds(stored, $0) } ?? false) {
                    return (.adopted(stored), nil)
                }
                return await acquire(over: stored, progress: progress)
            case .end(let token, let expiry):
                guard Self.holds(stored, token) else { return (.adopted(stored), nil) }
                return end(expiry, over: stored, error: nil)
            }
        }

        /// Whether the store still holds `token`: nobody replaced it since the session read it.
        private static func holds(_ stored: StoredToken, _ token: OAuthToken) -> Bool {
            stored.token.map { StateMachine.sameCredential($0, token) } ?? false
        }

        private func refresh(_ token: OAuthToken, over stored: StoredToken, progress: OperationProgress) async -> (
            StateMachine.Outcome, (any Error)?
        ) {
            let closure = refreshClosure
            switch await callAbandoning({ try await closure(token) }, progress: progress) {
            case .success(let answer):
                var renewed = answer
                // A token response without `refresh_token` keeps the old one (RFC 6749 §6).
                if renewed.refreshToken == nil { renewed.refreshToken = token.refreshToken }
                guard !renewed.accessToken.isEmpty else {
                    return (.transient, AuthenticationError.invalidTokenResponse)
                }
                return save(renewed, change: .refreshed, over: stored)
            case .failure(let error):
                switch RefreshFailureClassifier.classify(error, date: now()) {
                case .transient: return (.transient, error)
                case .rejected(let expiry): return end(expiry, over: stored, error: error)
                }
            }
        }

        private func acquire(over stored: StoredToken, progress: OperationProgress) async -> (
            StateMachine.Outcome, (any Error)?
        ) {
            guard let acquireClosure else { return (.transient, AuthenticationError.missingCredential) }
            // Acquire failures are always transient: there is no refresh token to lose.
            switch await callAbandoning({ try await acquireClosure() }, progress: progress) {
            case .success(let token) where token.accessToken.isEmpty:
                return (.transient, AuthenticationError.invalidTokenResponse)
            case .success(let token):
                return save(token, change: .acquired, over: stored)
            case .failure(let error):
                return (.transient, error)
            }
        }

        /// Stores the new token if nobody wrote since `stored` was read; otherwise adopts what
        /// was written (a session that took the lease after this one's had expired).
        private func save(_ token: OAuthToken, change: TokenChange, over stored: StoredToken) -> (
            StateMachine.Outcome, (any Error)?
        ) {
            // A token that cannot be sent is never stored: it fails like an unreadable answer.
            if case .failure(let problem) = OAuthToken.checked(token) { return (.transient, problem) }
            do {
                if let generation = try coordinator.write(token, change: change, ifGeneration: stored.generation) {
                    return (.renewed(token, generation: generation), nil)
                }
                return (.adopted(try coordinator.read()), nil)
            } catch {
                // Stored before anyone uses it: a token that could not be stored is not used.
                return (.transient, error)
            }
        }

        /// Ends the session: clears the store, but only if it still holds the token that was
        /// rejected. When another session stored a different one, that one is adopted and the
        /// session goes on.
        private func end(_ expiry: SessionExpiry, over stored: StoredToken, error: (any Error)?) -> (
            StateMachine.Outcome, (any Error)?
        ) {
            do {
                if let generation = try coordinator.write(nil, change: .sessionExpired, ifGeneration: stored.generation)
                {
                    return (.ended(expiry, generation: generation), error)
                }
                return (.adopted(try coordinator.read()), nil)
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
