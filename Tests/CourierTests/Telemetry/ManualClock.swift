import CourierTesting

/// A `Clock` the test moves by hand: a sleeper wakes when ``advance(by:)`` reaches its
/// deadline, and ``waitForSleepers(_:)`` lets the test wait until something sleeps on it.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper: Sendable {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State: Sendable {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
    }

    private let state = LockIsolated(State())

    var now: Instant { state.value.now }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await withCheckedThrowingContinuation { continuation in
            let due = state.withValue { state in
                guard state.now < deadline else { return true }
                state.sleepers.append(Sleeper(deadline: deadline, continuation: continuation))
                return false
            }
            if due { continuation.resume() }
        }
    }

    /// Moves the clock on and wakes every sleeper whose deadline it reached.
    func advance(by duration: Duration) {
        let due = state.withValue { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { !(now < $0.deadline) }
            state.sleepers.removeAll { !(now < $0.deadline) }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once `count` tasks sleep on the clock.
    func waitForSleepers(_ count: Int) async throws {
        _ = try await state.wait { $0.sleepers.count >= count }
    }
}
