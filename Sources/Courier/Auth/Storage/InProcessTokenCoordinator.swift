import Foundation

/// Lets the sessions of one process share any ``TokenStore``: they behave as one session.
///
/// Each write bumps a generation kept in memory, which the sessions check (for the price of
/// a lock) before every signed request; renewals take turns through a lease held in memory.
/// ``InMemoryTokenStore`` is built on one; ``CoordinatedTokenStore`` attaches one to a store
/// of yours:
///
/// ```swift
/// let store = CoordinatedTokenStore(sharingWithinProcess: DefaultsTokenStore())
/// ```
///
/// Other processes never hear of it: across processes, use ``LockFileTokenCoordinator``.
public final class InProcessTokenCoordinator: ImmediateTokenCoordinator {
    private struct State {
        var generation: UInt64 = 0
        var change: TokenChange?
    }

    private let store: any TokenStore
    private let state = Locked(State())
    private let queue = LeaseQueue()

    /// A coordinator for the sessions of this process that share `store`. Sessions read and
    /// write `store` through it, never directly.
    public init(store: any TokenStore) {
        self.store = store
    }

    /// The generation in memory: a lock, no I/O, no suspension.
    public nonisolated(nonsending) func currentGeneration() async throws -> UInt64? {
        generationNow()
    }

    /// The store's token and the current generation, read under the lock that every write
    /// takes: the store is called one call at a time, as a store of one session always was.
    public nonisolated(nonsending) func read() async throws -> StoredToken {
        try readNow()
    }

    /// Saves `token` to the store if the generation is still `expected`, under the lock that
    /// every write takes.
    public nonisolated(nonsending) func write(
        _ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?
    ) async throws -> UInt64? {
        try writeNow(token, change: change, ifGeneration: expected)
    }

    func generationNow() -> UInt64? {
        state.withValue { $0.generation }
    }

    func readNow() throws -> StoredToken {
        try state.withValue { state in
            StoredToken(token: try store.load(), generation: state.generation, change: state.change)
        }
    }

    func writeNow(_ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?) throws -> UInt64? {
        try state.withValue { state in
            if let expected, expected != state.generation { return nil }
            try store.save(token)
            state.generation &+= 1
            state.change = change
            return state.generation
        }
    }

    /// Waits for the lease in memory, in the order asked; it frees itself after `duration`
    /// if it is never released.
    public func acquireLease(expiringAfter duration: TimeInterval, waitingAtMost timeout: TimeInterval) async throws
        -> any TokenLease
    {
        try await queue.acquire(timeout: timeout)
        return QueueLease(queue: queue, expiringAfter: duration)
    }

    // MARK: For InMemoryTokenStore

    /// The store's token, or `nil` when it cannot be read.
    var currentToken: OAuthToken? { try? store.load() }

    /// Saves `token` whatever the generation (a plain ``TokenStore/save(_:)``).
    func replace(with token: OAuthToken?) {
        _ = try? writeNow(token, change: .saving(token), ifGeneration: nil)
    }
}

/// A lease on a ``LeaseQueue``, released once: by its holder, when it is dropped, or when it
/// expires. Each ``isHeld()`` while it is held extends it by its duration.
final class QueueLease: TokenLease {
    private struct State {
        var released = false
        var deadline: ContinuousClock.Instant
    }

    private let queue: LeaseQueue
    private let duration: Duration
    private let state: Locked<State>

    init(queue: LeaseQueue, expiringAfter duration: TimeInterval) {
        self.queue = queue
        self.duration = .nanoseconds(Int64(clamping: Delay.nanoseconds(duration)))
        self.state = Locked(State(deadline: .now + self.duration))
        Task { [weak self] in
            // Until it is released: sleeps to the deadline, which may have moved meanwhile.
            while let left = self?.timeLeft() {
                guard left > .zero else {
                    self?.release()
                    return
                }
                guard (try? await Delay.sleep(seconds: left.inSeconds)) != nil else { return }
            }
        }
    }

    /// The time until the lease expires; `nil` once it is released.
    private func timeLeft() -> Duration? {
        state.withValue { $0.released ? nil : $0.deadline - .now }
    }

    func isHeld() -> Bool {
        state.withValue { state in
            guard !state.released else { return false }
            state.deadline = .now + duration
            return true
        }
    }

    func release() {
        let first = state.withValue { state in
            defer { state.released = true }
            return !state.released
        }
        if first { queue.release() }
    }

    deinit {
        release()
    }
}
