import Courier
import CourierTesting
import Foundation
import Testing

/// The lease and the generation that sessions sharing a store take turns through, on their
/// own: two `FileTokenStore`s of one file in this process exclude each other as two
/// processes do (`flock` belongs to an open file), and tasks sharing one instance queue.
@Suite("Token store coordination", .timeLimit(.minutes(20)))
struct TokenStoreCoordinationTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-lease-\(UUID().uuidString)")
    var file: URL { folder.appendingPathComponent("token.json") }

    /// How long a lease that must be granted may take: a hang detector, not a claim. A
    /// sanitized run on a busy machine takes seconds per turn through the lock file.
    static let patience: TimeInterval = 600

    func coordinator() throws -> any TokenStoreCoordinator {
        try #require(FileTokenStore(url: file).coordinator)
    }

    @Test(
        "two instances of one file: the second cannot take the lease while the first holds it, and takes it once released"
    )
    func leaseExcludes() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try coordinator()
        let second = try coordinator()
        let lease = try await first.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience)
        await #expect(throws: TokenLeaseTimeout.self) {
            _ = try await second.acquireLease(expiringAfter: 600, waitingAtMost: 0.05)
        }
        await lease.release()
        let next = try await second.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience)
        await next.release()
        // Released twice: nothing happens, and the lease is free.
        await lease.release()
        try await first.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience).release()
    }

    @Test("a waiter takes the lease the moment its holder releases it")
    func waiterTakesOver() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try coordinator()
        let second = try coordinator()
        let lease = try await first.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience)
        let waiting = Task { try await second.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience) }
        await lease.release()
        try await waiting.value.release()
    }

    @Test("a lease dropped without release (its holder went away) frees the lease file for the next process")
    func droppedLease() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let second = try coordinator()
        do {
            let first = try coordinator()
            _ = try await first.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience)
        }
        try await second.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience).release()
    }

    @Test("a holder that hangs past its lease loses it, and its late write is refused")
    func hungHolder() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let hung = try coordinator()
        let other = try coordinator()
        let token = OAuthToken(accessToken: "A", refreshToken: "R0")
        let start = try #require(try await hung.write(token, change: .signedIn, ifGeneration: nil))
        // The hung holder took the lease for 0.2 s and read generation `start`; then nothing.
        let stuck = try await hung.acquireLease(expiringAfter: 0.2, waitingAtMost: Self.patience)
        let taken = try await other.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience)
        let seen = try await other.read()
        #expect(seen.generation == start)
        let renewed = OAuthToken(accessToken: "B", refreshToken: "R1")
        #expect(try await other.write(renewed, change: .refreshed, ifGeneration: seen.generation) != nil)
        await taken.release()
        // The hung holder wakes up with its answer: the generation it read is gone.
        let late = OAuthToken(accessToken: "LATE", refreshToken: "R-late")
        #expect(try await hung.write(late, change: .refreshed, ifGeneration: start) == nil)
        #expect(try await other.read().token == renewed)
        await stuck.release()
        try await other.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience).release()
    }

    @Test("tasks sharing one instance queue for the lease, one at a time — 20 rounds of 20")
    func inProcessQueue() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let shared = try coordinator()
        let inMemory = try #require(InMemoryTokenStore().coordinator)
        for coordinator in [shared, inMemory] {
            for _ in 0..<20 {
                let holders = LockIsolated(0)
                let most = LockIsolated(0)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<20 {
                        group.addTask {
                            let lease = try await coordinator.acquireLease(
                                expiringAfter: 600, waitingAtMost: Self.patience)
                            let now = holders.withValue { count in
                                count += 1
                                return count
                            }
                            most.withValue { $0 = max($0, now) }
                            await Task.yield()
                            holders.withValue { $0 -= 1 }
                            await lease.release()
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(most.value == 1)
            }
        }
    }

    @Test("a waiter whose task is cancelled stops waiting at once; the holder keeps the lease")
    func cancelledWaiter() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        for coordinator in [try coordinator(), try #require(InMemoryTokenStore().coordinator)] {
            let lease = try await coordinator.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience)
            let waiter = Task { try await coordinator.acquireLease(expiringAfter: 600, waitingAtMost: 600) }
            waiter.cancel()
            await #expect(throws: CancellationError.self) { _ = try await waiter.value }
            await lease.release()
            try await coordinator.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience).release()
        }
    }

    @Test(
        "any store can be shared: CoordinatedTokenStore over a store of your own, within a process and through a lock file"
    )
    func coordinatedStore() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        struct BoxStore: TokenStore {
            let box = LockIsolated<OAuthToken?>(nil)
            func load() throws -> OAuthToken? { box.value }
            func save(_ token: OAuthToken?) throws { box.setValue(token) }
        }
        let base = BoxStore()
        let stores = [
            CoordinatedTokenStore(sharingWithinProcess: base),
            CoordinatedTokenStore(base, lockFile: folder.appendingPathComponent("custom.lock")),
        ]
        for store in stores {
            let coordinator = try #require(store.coordinator)
            let before = try await coordinator.currentGeneration()
            try store.save(OAuthToken(accessToken: "A"))
            #expect(base.box.value?.accessToken == "A")
            #expect(try await coordinator.currentGeneration() != before)
            #expect(try store.load()?.accessToken == "A")
            try store.save(nil)
        }
    }
}
