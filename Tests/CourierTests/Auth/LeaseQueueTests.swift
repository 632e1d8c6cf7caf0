import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The in-process queue behind every store's lease: one holder at a time, and a release is
/// never lost, whenever it happens.
@Suite("LeaseQueue", .timeLimit(.minutes(20)))
struct LeaseQueueTests {
    @Test("a release that comes while a waiter is arriving (not yet queued) hands it the queue — 200 rounds")
    func releaseWhileArriving() async throws {
        for _ in 0..<200 {
            let queue = LeaseQueue()
            try await queue.acquire(timeout: 600)
            // Before the fix the waiter then waited for a release that had already happened,
            // until its time-out: here, ten minutes, and the test failed with TokenLeaseTimeout.
            try await queue.acquire(timeout: 600, whileArriving: { queue.release() })
            // It holds the queue: a third task must wait until it releases.
            let third = Task { try await queue.acquire(timeout: 600) }
            queue.release()
            try await third.value
            queue.release()
        }
    }

    @Test("a waiter that arrives after the release takes the free queue at once, and holds it alone")
    func freedQueueIsTaken() async throws {
        let queue = LeaseQueue()
        try await queue.acquire(timeout: 600)
        let holders = LockIsolated(0)
        let most = LockIsolated(0)
        let entries = LockIsolated(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await queue.acquire(
                        timeout: 600,
                        whileArriving: index == 0 ? { queue.release() } : nil)
                    let now = holders.withValue { count in
                        count += 1
                        return count
                    }
                    most.withValue { $0 = max($0, now) }
                    entries.withValue { $0 += 1 }
                    await Task.yield()
                    holders.withValue { $0 -= 1 }
                    queue.release()
                }
            }
            try await group.waitForAll()
        }
        #expect(most.value == 1)
        #expect(entries.value == 50)
    }
}
