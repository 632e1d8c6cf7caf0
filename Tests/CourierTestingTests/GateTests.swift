import CourierTesting
import Testing

@Suite("Gate", .timeLimit(.minutes(20)))
struct GateTests {
    @Test("holds every task until opened, then lets them and every later one through", arguments: 1...5)
    func holdsUntilOpened(round: Int) async throws {
        let gate = Gate()
        let passed = CallCounter()
        let tasks = (0..<10).map { _ in
            Task {
                try await gate.wait()
                passed.increment()
            }
        }
        try await gate.waitForWaiting(10)
        #expect(passed.value == 0)
        #expect(!gate.isOpen)

        gate.open()
        for task in tasks { try await task.value }
        #expect(passed.value == 10)
        #expect(gate.waitingCount == 0)
        // Open stays open.
        try await gate.wait()
        #expect(gate.isOpen)
    }

    @Test("a task cancelled while it waits throws CancellationError; the gate holds the others")
    func cancelWhileWaiting() async throws {
        let gate = Gate()
        let kept = Task { try await gate.wait() }
        let cancelled = Task { try await gate.wait() }
        try await gate.waitForWaiting(2)

        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(gate.waitingCount == 1)
        #expect(!gate.isOpen)

        gate.open()
        try await kept.value
    }

    @Test("a gate never opened holds a task until it is cancelled")
    func untilCancelled() async throws {
        let gate = Gate()
        let held = Task { try await gate.wait() }
        try await gate.waitForWaiting(1)
        held.cancel()
        await #expect(throws: CancellationError.self) { try await held.value }
    }
}
