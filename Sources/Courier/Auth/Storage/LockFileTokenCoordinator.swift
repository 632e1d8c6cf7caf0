import Foundation

/// Lets sessions in several processes on one machine share a token, through a lock file:
/// they behave as one session.
///
/// ``FileTokenStore`` uses one (its lock file is `<token file>.lock`); so does
/// `KeychainTokenStore` given a lock directory (an app group's container). Use one for your
/// own store when several processes share it:
///
/// ```swift
/// let shared = CoordinatedTokenStore(
///     DefaultsTokenStore(suiteName: "group.com.example.app"),
///     lockFile: containerURL.appendingPathComponent("token.lock"))
/// ```
///
/// - **Generation.** Each write bumps a generation in the lock file, which sessions read
///   before every signed request (one 24-byte `pread`, well under a microsecond): a session
///   that slept while others rotated the token loads the new one before it sends anything.
/// - **Lease.** A session renewing the token holds an `flock` on `<lock file>.lease`. The
///   operating system frees it when the process dies, so a holder killed mid-refresh never
///   blocks the others; a holder that hangs (or is stopped) loses the lease when it expires,
///   and its late write is refused, because every write first checks the generation.
/// - Waiting for another process's lease polls every few milliseconds (2 ms at first, 20 ms
///   at most).
/// - **Clock.** A lease's expiry is measured on a clock that every process on the machine
///   shares and that wall-clock changes do not move (`CLOCK_BOOTTIME` on Linux, continuous
///   time on Apple platforms), stored with the boot's identity: a lease written before a
///   reboot has expired, and a process whose wall clock jumped by hours neither takes a live
///   lease nor loses its own. (Lock files written by an older Courier, with a wall-clock
///   expiry only, are read as before.)
///
/// Put the lock file on a local file system that supports `flock` (not a network share), and
/// do not delete it while sessions run: Courier never does.
public final class LockFileTokenCoordinator: ImmediateTokenCoordinator {
    private let lockFile: LockFile
    private let storage: any GenerationalStorage
    private let queue = LeaseQueue()
    private let wallClock: @Sendable () -> Date
    /// The generation stored with the token (`storedGeneration`) when the lock file was last
    /// seen at `recordGeneration`, by a read or a write of this coordinator: a fenced write
    /// that finds the lock file still at that generation knows what the token carries without
    /// reading (and decoding) it again. A refresh reads the token once.
    private let lastSeen = Locked<(recordGeneration: UInt64, storedGeneration: UInt64)?>(nil)

    /// A coordinator for `store` through the lock file at `lockFile` (created when first
    /// needed, mode 0600, with `<lockFile>.lease` beside it). Sessions read and write `store`
    /// through it, never directly.
    public convenience init(lockFile: URL, store: any TokenStore) {
        self.init(lockFile: lockFile, storage: PlainStoreStorage(store: store))
    }

    /// `wallClock`: the wall clock, written beside each lease for older Courier versions
    /// (a seam: the tests move it by hours to prove that it decides nothing here).
    init(lockFile: URL, storage: any GenerationalStorage, wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.lockFile = LockFile(url: lockFile)
        self.storage = storage
        self.wallClock = wallClock
    }

    /// The lock file that holds the generation and the lease.
    public var lockFileURL: URL { lockFile.url }

    /// The generation in the lock file, read without locking: one 24-byte `pread`, no
    /// suspension.
    public nonisolated(nonsending) func currentGeneration() async throws -> UInt64? {
        generationNow()
    }

    /// The stored token, with the generation read before it (so a write that lands in
    /// between makes the next check read again).
    public nonisolated(nonsending) func read() async throws -> StoredToken {
        try readNow()
    }

    /// Writes `token` holding the lock file's guard, if the generation is still `expected`.
    public nonisolated(nonsending) func write(
        _ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?
    ) async throws -> UInt64? {
        try writeNow(token, change: change, ifGeneration: expected)
    }

    func generationNow() -> UInt64? {
        lockFile.generation().generation
    }

    func readNow() throws -> StoredToken {
        let (generation, change) = lockFile.generation()
        let (token, storedGeneration) = try storage.readToken()
        guard let storedGeneration, storedGeneration > generation else {
            remember(record: generation, stored: storedGeneration ?? 0)
            return StoredToken(token: token, generation: generation, change: change)
        }
        // The token is newer than the lock file says: its writer died between the two writes,
        // or the lock file was deleted. Bring the lock file up to date, so the others see it.
        return try lockFile.withGuard { record, _ in
            let (token, storedGeneration) = try storage.readToken()
            if let storedGeneration, storedGeneration > record.generation {
                record.generation = storedGeneration
                record.change = token == nil ? .signedOut : .refreshed
            }
            remember(record: record.generation, stored: storedGeneration ?? 0)
            return StoredToken(token: token, generation: record.generation, change: record.change)
        }
    }

    func writeNow(_ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?) throws -> UInt64? {
        if token == nil, expected == nil, !lockFile.directoryExists {
            // Nothing was ever stored here (nor could a session have read it): deleting it
            // creates nothing on disk.
            try storage.writeToken(nil, generation: 0)
            return 0
        }
        return try lockFile.withGuard { record, _ in
            if let expected, record.generation != expected { return nil }
            // Never below the token's own generation, in case the lock file was replaced. A
            // fenced write after a read at this very generation (a refresh: read under the
            // lease, then write) knows it from that read; a sign-in or sign-out reads it.
            let known =
                expected == nil
                ? nil
                : lastSeen.withValue { seen in
                    seen.flatMap { $0.recordGeneration == record.generation ? $0.storedGeneration : nil }
                }
            let stored = known ?? (try? storage.readToken())?.generation ?? 0
            let generation = max(record.generation, stored) &+ 1
            try storage.writeToken(token, generation: generation)
            record.generation = generation
            record.change = change
            remember(record: generation, stored: generation)
            return generation
        }
    }

    /// Notes what the token carried when the lock file was at `record`.
    private func remember(record: UInt64, stored: UInt64) {
        lastSeen.withValue { $0 = (record, stored) }
    }

    /// Takes the lease: first among this process's sessions that share this coordinator, then
    /// among processes.
    public func acquireLease(expiringAfter duration: TimeInterval, waitingAtMost timeout: TimeInterval) async throws
        -> any TokenLease
    {
        let started = ContinuousClock.now
        let limit = Duration.nanoseconds(Int64(clamping: Delay.nanoseconds(timeout)))
        try await queue.acquire(timeout: timeout)
        let owner = UUID()
        do {
            var pause = 0.002
            while true {
                if let backed = try takeLease(owner: owner, duration: duration) {
                    return FileLease(coordinator: self, owner: owner, duration: duration, backedByLock: backed)
                }
                let waited = started.duration(to: .now)
                guard waited < limit else { throw TokenLeaseTimeout(seconds: timeout) }
                try await Delay.sleep(seconds: min(pause, (limit - waited).inSeconds))
                pause = min(pause * 2, 0.02)
            }
        } catch {
            queue.release()
            throw error
        }
    }

    /// One try at the lease, holding the guard: whether it was taken with the lease file's
    /// lock (`true`), without it (`false`: the lock is held by a process whose lease was
    /// taken over), or not at all (`nil`).
    private func takeLease(owner: UUID, duration: TimeInterval) throws -> Bool? {
        try lockFile.withGuard { record, files in
            let now = Self.milliseconds(wallClock())
            // Measured on the machine's shared monotonic clock (``LeaseClock``): a process whose
            // wall clock jumped never takes a live lease, nor loses its own.
            let expired = record.isExpired(wallMilliseconds: now)
            let locked = try files.tryLockLease()
            if locked {
                // Nobody alive holds the lease file: the lease is free, released, or its holder
                // died. Unless it is held, unexpired, by a session that took it over without
                // the lock (whose lock holder has since gone).
                if record.owner != nil, !record.backedByLock, !expired {
                    files.unlockLease()
                    return nil
                }
            } else if record.owner != nil, !expired {
                return nil
            }
            // Free, or its holder hung past the expiry: from now on that holder's writes are
            // refused, since the generation it read is checked before each one.
            record.owner = owner
            record.setExpiry(after: duration, wallMilliseconds: now)
            record.backedByLock = locked
            return locked
        }
    }

    /// Whether the lease is still `owner`'s: another session took it over once it expired
    /// otherwise. A lease still held (even one expired that nobody took) is extended by
    /// `duration` from now, so that nobody takes it while the request its holder is about to
    /// send is in flight, nor while its holder keeps it for a token the store refused. A guard
    /// that cannot be taken answers `false`: the refresh token stays home.
    fileprivate func holdsLease(owner: UUID, duration: TimeInterval) -> Bool {
        let held = try? lockFile.withGuard { record, _ -> Bool in
            guard record.owner == owner else { return false }
            record.setExpiry(after: duration, wallMilliseconds: Self.milliseconds(wallClock()))
            return true
        }
        return held ?? false
    }

    fileprivate func releaseLease(owner: UUID, backedByLock: Bool) {
        do {
            try lockFile.withGuard { record, files in
                if record.owner == owner {
                    record.owner = nil
                    record.expiry = 0
                    record.bootID = nil
                    record.bootExpiry = 0
                    record.backedByLock = false
                }
                // Still holding the guard: nobody may see the record free while this process
                // holds the lease file, or it would take the lease without that lock.
                if backedByLock { files.unlockLease() }
            }
        } catch {
            // The guard could not be taken. The record still names this owner, but a free lease
            // file tells the next process that the holder is gone.
            if backedByLock { lockFile.unlockLeaseFile() }
        }
        queue.release()
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        milliseconds(date.timeIntervalSince1970)
    }

    private static func milliseconds(_ seconds: TimeInterval) -> Int64 {
        Int64(clamping: Delay.nanoseconds(seconds) / 1_000_000)
    }
}

/// A lease on a lock file, released once: by its holder, when the system is about to
/// suspend the process, or when it is dropped.
private final class FileLease: TokenLease {
    private let releaser: Releaser
    private let assertion: BackgroundAssertion?

    init(coordinator: LockFileTokenCoordinator, owner: UUID, duration: TimeInterval, backedByLock: Bool) {
        let releaser = Releaser(
            coordinator: coordinator, owner: owner, duration: duration, backedByLock: backedByLock)
        self.releaser = releaser
        // A process suspended while it holds a lock in a shared container is killed by iOS
        // (0xdead10cc): the lease is held inside a background-task assertion, and given up
        // when the system ends it.
        self.assertion = BackgroundAssertion.begin { releaser.release() }
    }

    func release() {
        releaser.release()
        assertion?.end()
    }

    func isHeld() -> Bool {
        releaser.isHeld()
    }

    deinit {
        release()
    }

    private final class Releaser: Sendable {
        let coordinator: LockFileTokenCoordinator
        let owner: UUID
        let duration: TimeInterval
        let backedByLock: Bool
        let released = Locked(false)

        init(coordinator: LockFileTokenCoordinator, owner: UUID, duration: TimeInterval, backedByLock: Bool) {
            self.coordinator = coordinator
            self.owner = owner
            self.duration = duration
            self.backedByLock = backedByLock
        }

        func isHeld() -> Bool {
            !released.withValue { $0 } && coordinator.holdsLease(owner: owner, duration: duration)
        }

        func release() {
            let first = released.withValue { released in
                defer { released = true }
                return !released
            }
            if first { coordinator.releaseLease(owner: owner, backedByLock: backedByLock) }
        }
    }
}
