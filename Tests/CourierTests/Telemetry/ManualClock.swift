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
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State: Sendable {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = LockIsolated(State())

    var now: Instant { state.value.now }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// Sleeps until the clock reaches `deadline`; throws `CancellationError` when the sleeping
    /// task is cancelled (as the system's clocks do), so a cancelled ticker ends rather than
    /// staying suspended for the rest of the process.
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withValue { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let due = state.withValue { state -> Bool? in
                    if state.cancelledEarly.remove(id) != nil { return nil }
                    guard state.now < deadline else { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                switch due {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let sleeper = state.withValue { state -> Sleeper? in
                if let index = state.sleepers.firstIndex(where: { $0.id == id }) {
                    return state.sleepers.remove(at: index)
                }
                state.cancelledEarly.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
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
