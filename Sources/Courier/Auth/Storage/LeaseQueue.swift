import Foundation

/// The in-process half of a lease: one holder at a time among the tasks of this process, in
/// the order they asked, each waiting at most its time-out.
///
/// Cross-process locks (`flock`) are held by an open file, so two sessions that share one
/// coordinator (and so one open lock file) would both "hold" the lock at once: they queue
/// here first.
final class LeaseQueue: Sendable {
    private struct State {
        var held = false
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        /// Waiters given an ID but not queued yet.
        var arriving: Set<UInt64> = []
        /// Arriving waiters that timed out or were cancelled before they were queued.
        var failedEarly: [UInt64: any Error] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Returns once this task holds the queue.
    ///
    /// - Throws: ``TokenLeaseTimeout`` after `timeout` seconds, `CancellationError` when the
    ///   task is cancelled.
    /// - Parameter whileArriving: runs once this task has learnt that the queue is held and
    ///   before it is queued (a seam for the tests of that window).
    func acquire(timeout: TimeInterval, whileArriving: (() -> Void)? = nil) async throws {
        let id: UInt64? = state.withValue { state in
            guard state.held else {
                state.held = true
                return nil
            }
            state.nextID += 1
            state.arriving.insert(state.nextID)
            return state.nextID
        }
        guard let id else { return }
        whileArriving?()
        let timer = Task { [weak self] in
            guard (try? await Delay.sleep(seconds: timeout)) != nil else { return }
            self?.fail(id, with: TokenLeaseTimeout(seconds: timeout))
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let early: Result<Void, any Error>? = state.withValue { state in
                    state.arriving.remove(id)
                    if let error = state.failedEarly.removeValue(forKey: id) { return .failure(error) }
                    // Freed while this waiter was arriving: the holder found nobody queued to
                    // hand it to, so it is this waiter's now (else it would wait for a
                    // release that never comes).
                    guard state.held else {
                        state.held = true
                        return .success(())
                    }
                    state.waiting.append((id, continuation))
                    return nil
                }
                if let early { continuation.resume(with: early) }
            }
        } onCancel: {
            fail(id, with: CancellationError())
        }
    }

    /// Hands the queue to the next waiter, or frees it.
    func release() {
        let next = state.withValue { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiting.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }

    private func fail(_ id: UInt64, with error: any Error) {
        let waiter = state.withValue { state -> CheckedContinuation<Void, any Error>? in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else {
                // Not queued yet: it fails as it arrives. Already handed the queue: too late.
                if state.arriving.contains(id) { state.failedEarly[id] = error }
                return nil
            }
            return state.waiting.remove(at: index).continuation
        }
        waiter?.resume(throwing: error)
    }
}
