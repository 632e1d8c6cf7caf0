import CourierTesting
import Testing

@Suite("LockIsolated", .timeLimit(.minutes(20)))
struct LockIsolatedTests {
    @Test("holds, replaces and changes a value")
    func basics() {
        let box = LockIsolated([1])
        #expect(box.value == [1])
        box.setValue([2])
        let count = box.withValue { value -> Int in
            value.append(3)
            return value.count
        }
        #expect(count == 2)
        #expect(box.value == [2, 3])
    }

    @Test("read-modify-write in withValue loses no update when many tasks race", arguments: 1...5)
    func concurrentIncrements(round: Int) async {
        let box = LockIsolated(0)
        let tasks = 50
        let increments = 200
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<increments { box.withValue { $0 += 1 } }
                }
            }
        }
        #expect(box.value == tasks * increments)
    }

    @Test("an error thrown inside withValue reaches the caller and keeps the changes made before it")
    func errorInside() {
        struct Failure: Error {}
        let box = LockIsolated("a")
        #expect(throws: Failure.self) {
            try box.withValue { value in
                value += "b"
                throw Failure()
            }
        }
        #expect(box.value == "ab")
        // The lock was released: the box is usable again.
        box.setValue("c")
        #expect(box.value == "c")
    }

    @Test("wait(until:) returns at once, with the value, when the condition already holds")
    func waitHoldsNow() async throws {
        let box = LockIsolated(3)
        #expect(try await box.wait { $0 >= 2 } == 3)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("wait(until:) is resumed by the change that makes the condition true, not before", arguments: 1...5)
    func waitResumedByChange(round: Int) async throws {
        let executor = SerialTaskExecutor()
        let box = LockIsolated(0)
        let returned = LockIsolated<Int?>(nil)
        let waiter = Task(executorPreference: executor) {
            returned.setValue(try await box.wait { $0 == 2 })
        }
        // The waiter is suspended in `wait` now: nothing else holds it.
        try await executor.waitUntilIdle()
        box.setValue(1)
        try await executor.waitUntilIdle()
        #expect(returned.value == nil, "a change that does not satisfy the condition resumes nothing")
        box.withValue { $0 += 1 }
        try await waiter.value
        #expect(returned.value == 2)
    }

    @Test("many waiters for different conditions are each resumed when theirs holds", arguments: 1...5)
    func manyWaiters(round: Int) async throws {
        let box = LockIsolated(0)
        let waiters = (1...20).map { target in
            Task { try await box.wait { $0 >= target } }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { box.withValue { $0 += 1 } }
            }
        }
        for (index, waiter) in waiters.enumerated() {
            #expect(try await waiter.value >= index + 1)
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("a waiter whose task is cancelled throws CancellationError and leaves the box usable")
    func waitCancelled() async throws {
        let executor = SerialTaskExecutor()
        let box = LockIsolated(0)
        let waiter = Task(executorPreference: executor) { try await box.wait { $0 == 1 } }
        try await executor.waitUntilIdle()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        box.setValue(1)
        #expect(try await box.wait { $0 == 1 } == 1)

        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await box.wait { $0 == 5 }
        }
        await #expect(throws: CancellationError.self) { try await early.value }
    }
}
