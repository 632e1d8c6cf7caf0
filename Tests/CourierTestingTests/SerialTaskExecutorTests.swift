import CourierTesting
import Testing

@Suite("SerialTaskExecutor", .timeLimit(.minutes(20)))
struct SerialTaskExecutorTests {
    /// Holds the callers of ``hold(_:)`` at a gate, from inside the actor.
    actor Holder {
        private(set) var entered = 0

        func hold(_ gate: Gate) async throws {
            entered += 1
            try await gate.wait()
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("idle means every task started on it is suspended: each has reached its wait", arguments: 1...10)
    func idleAfterEveryTaskSuspends(round: Int) async throws {
        let executor = SerialTaskExecutor()
        let gate = Gate()
        let arrived = CallCounter()
        let tasks = (0..<50).map { _ in
            Task(executorPreference: executor) {
                // Some steps before the wait, each a chance to be resumed later.
                for _ in 0..<3 { await Task.yield() }
                arrived.increment()
                try await gate.wait()
            }
        }
        try await executor.waitUntilIdle()
        // Not a wait with a bound: at idle, every task is at the gate.
        #expect(arrived.value == 50)
        #expect(gate.waitingCount == 50)

        gate.open()
        for task in tasks { try await task.value }
        try await executor.waitUntilIdle()
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("code in an actor's methods runs on it too: a task held inside one counts as suspended")
    func actorMethods() async throws {
        let executor = SerialTaskExecutor()
        let holder = Holder()
        let gate = Gate()
        let tasks = (0..<5).map { _ in Task(executorPreference: executor) { try await holder.hold(gate) } }
        try await executor.waitUntilIdle()
        #expect(await holder.entered == 5)
        #expect(gate.waitingCount == 5)
        gate.open()
        for task in tasks { try await task.value }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("jobs run one at a time")
    func serial() async throws {
        let executor = SerialTaskExecutor()
        let running = LockIsolated((now: 0, peak: 0))
        let tasks = (0..<20).map { _ in
            Task(executorPreference: executor) {
                for _ in 0..<5 {
                    running.withValue {
                        $0.now += 1
                        $0.peak = max($0.peak, $0.now)
                    }
                    running.withValue { $0.now -= 1 }
                    await Task.yield()
                }
            }
        }
        for task in tasks { await task.value }
        #expect(running.value.peak == 1)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("idle at once when nothing runs; waiting is cancelled with its task")
    func idleAndCancellation() async throws {
        let executor = SerialTaskExecutor()
        try await executor.waitUntilIdle()

        // A task that keeps yielding keeps the executor busy until it is told to stop.
        let stop = LockIsolated(false)
        let busy = Task(executorPreference: executor) {
            while !stop.value { await Task.yield() }
        }
        let waiter = Task { try await executor.waitUntilIdle() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        stop.setValue(true)
        await busy.value
        try await executor.waitUntilIdle()
    }
}
