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
        let holders = LockedCounter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await queue.acquire(
                        timeout: 600,
                        whileArriving: index == 0 ? { queue.release() } : nil)
                    holders.enter()
                    await Task.yield()
                    holders.leave()
                    queue.release()
                }
            }
            try await group.waitForAll()
        }
        #expect(holders.most == 1)
        #expect(holders.entries == 50)
    }
}

/// Counts holders at once, and the most there ever were.
private final class LockedCounter: Sendable {
    private let counts = Locked((now: 0, most: 0, entries: 0))

    func enter() {
        counts.withValue { counts in
            counts.now += 1
            counts.entries += 1
            counts.most = max(counts.most, counts.now)
        }
    }

    func leave() {
        counts.withValue { $0.now -= 1 }
    }

    var most: Int { counts.withValue { $0.most } }
    var entries: Int { counts.withValue { $0.entries } }
}
