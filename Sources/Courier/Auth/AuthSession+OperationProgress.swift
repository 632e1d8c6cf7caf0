import Foundation

extension AuthSession {
    /// When an operation's task began to run and whether it has ended: what its time-out
    /// counts from, and what keeps a time-out from failing waiters whose answer is already on
    /// its way.
    ///
    /// A task is created at once but runs when an executor thread is free; on a busy machine
    /// (or behind a main actor that is busy) that can take seconds. Counting the time-out from
    /// the task's creation would fail a refresh that never had the chance to run, and a
    /// refresh that finished just as the time-out fired would lose the race to the hop back to
    /// the session. Neither is "the token refresh did not finish in time".
    final class OperationProgress: Sendable {
        private enum Phase {
            case queued(waiting: [CheckedContinuation<ContinuousClock.Instant, Never>])
            case running(since: ContinuousClock.Instant)
            case ended(since: ContinuousClock.Instant)
        }

        private let phase = Locked(Phase.queued(waiting: []))

        /// Called first thing by the operation's task.
        func begin() {
            let now = ContinuousClock.now
            let waiting = phase.withValue { phase -> [CheckedContinuation<ContinuousClock.Instant, Never>] in
                guard case .queued(let waiting) = phase else { return [] }
                phase = .running(since: now)
                return waiting
            }
            for continuation in waiting { continuation.resume(returning: now) }
        }

        /// Called by the operation's task as soon as the operation returns, before its outcome
        /// travels to the session.
        func end() {
            let now = ContinuousClock.now
            let waiting = phase.withValue { phase -> [CheckedContinuation<ContinuousClock.Instant, Never>] in
                switch phase {
                case .queued(let waiting):
                    phase = .ended(since: now)
                    return waiting
                case .running(let since):
                    phase = .ended(since: since)
                    return []
                case .ended:
                    return []
                }
            }
            for continuation in waiting { continuation.resume(returning: now) }
        }

        /// Whether the operation has returned (its outcome may not have reached the session yet).
        var hasEnded: Bool {
            phase.withValue { phase in
                if case .ended = phase { return true }
                return false
            }
        }

        /// When the operation began to run, waiting for it if it has not yet.
        ///
        /// Not cancellable, and it need not be: every operation's task runs (a cancelled task
        /// still starts), and it calls ``begin()`` first.
        func began() async -> ContinuousClock.Instant {
            await withCheckedContinuation { continuation in
                let start = phase.withValue { phase -> ContinuousClock.Instant? in
                    switch phase {
                    case .queued(var waiting):
                        waiting.append(continuation)
                        phase = .queued(waiting: waiting)
                        return nil
                    case .running(let since), .ended(let since):
                        return since
                    }
                }
                if let start { continuation.resume(returning: start) }
            }
        }
    }
}
