import CourierTesting
import Testing

@Suite("CallCounter", .timeLimit(.minutes(20)))
struct CallCounterTests {
    @Test("counts calls from many tasks and resets")
    func counts() async {
        let counter = CallCounter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask { counter.increment() }
            }
        }
        #expect(counter.value == 100)
        counter.reset()
        #expect(counter.value == 0)
        #expect(counter.increment() == 1)
    }

    @Test("wait(forAtLeast:) returns when the call that reaches the count is made", arguments: 1...5)
    func waitForCalls(round: Int) async throws {
        let counter = CallCounter()
        let waiter = Task { try await counter.wait(forAtLeast: 3) }
        for _ in 0..<3 {
            Task { counter.increment() }
        }
        #expect(try await waiter.value >= 3)
        #expect(counter.value == 3)
        // Already reached: at once.
        #expect(try await counter.wait(forAtLeast: 2) == 3)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("wait(forAtLeast:) throws CancellationError when its task is cancelled")
    func waitCancelled() async throws {
        let executor = SerialTaskExecutor()
        let counter = CallCounter()
        let waiter = Task(executorPreference: executor) { try await counter.wait(forAtLeast: 1) }
        try await executor.waitUntilIdle()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }
}
