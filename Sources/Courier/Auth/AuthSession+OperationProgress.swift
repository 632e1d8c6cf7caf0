import Foundation

extension AuthSession {
    /// When an operation's refresh (or acquire) closure was called and whether it has
    /// returned: what the operation's time-out counts from, and what keeps a time-out from
    /// failing waiters whose answer is already on its way.
    ///
    /// Tasks are created at once but run when an executor thread is free; on a busy machine
    /// that can take seconds for each task the operation passes through (its own, the
    /// closure's, the hop back to the session). Counting those would fail a refresh that
    /// answered at once but had to wait its turn to run, which is not "the token refresh did
    /// not finish in time". An operation that calls no closure (it adopts another session's
    /// token, say) only ends.
    final class OperationProgress: Sendable {
        private enum Phase {
            case queued(waiting: [CheckedContinuation<ContinuousClock.Instant, Never>])
            case running(since: ContinuousClock.Instant)
            case ended(since: ContinuousClock.Instant)
        }

        private let phase = Locked(Phase.queued(waiting: []))

        /// Called as the closure is called.
        func begin() {
            let now = ContinuousClock.now
            let waiting = phase.withValue { phase -> [CheckedContinuation<ContinuousClock.Instant, Never>] in
                guard case .queued(let waiting) = phase else { return [] }
                phase = .running(since: now)
                return waiting
            }
            for continuation in waiting { continuation.resume(returning: now) }
        }

        /// Called as the closure returns, and again when the operation returns (before its
        /// outcome travels to the session); only the first call counts.
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

        /// Whether the closure (or the operation) has returned; its outcome may not have
        /// reached the session yet.
        var hasEnded: Bool {
            phase.withValue { phase in
                if case .ended = phase { return true }
                return false
            }
        }

        /// When the closure was called (or the operation ended without calling one), waiting
        /// for that if it has not happened yet.
        ///
        /// Not cancellable, and it need not be: every operation's task runs (a cancelled task
        /// still starts) and calls ``end()`` when it returns, whatever happened.
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
