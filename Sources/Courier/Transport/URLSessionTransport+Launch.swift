import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Where the transport creates, starts and cancels `URLSession` tasks: a few serial
    /// queues, never a Swift Concurrency thread.
    ///
    /// On Linux, swift-corelibs-foundation's `dataTask(with:)`, `resume()` and `cancel()`
    /// wait synchronously for the one serial queue that every `URLSession` of the process
    /// shares, and that queue also runs every delegate callback of every session. Under load
    /// the wait lasts seconds. Made on Swift Concurrency's threads (one per core, shared with
    /// `DispatchQueue.global()` there) it stalls every task of the process meanwhile: a token
    /// refresh that was ready to answer was seen to outlast its 30 s time-out that way, on a
    /// busy 2-core machine. A serial queue's thread is one of libdispatch's own, outside that
    /// pool; several of them, taken in turn, keep one slow wait from holding up every other
    /// start or cancellation behind it.
    static func launchQueue() -> DispatchQueue {
        launchQueues[
            nextLaunchQueue.withValue { next in
                defer { next = (next + 1) % launchQueues.count }
                return next
            }]
    }

    private static let launchQueues = (0..<4).map { DispatchQueue(label: "Courier.URLSessionTransport.launch.\($0)") }
    private static let nextLaunchQueue = Locked(0)

    /// One hop's task, from before the launch queue has created it until the hop ends: it
    /// lets the caller's cancellation reach a task that does not exist yet, and the hop's
    /// time-out be cancelled when the hop ends.
    final class HopLaunch: Sendable {
        private enum Phase {
            case pending
            case cancelled
            case started(URLSessionTask, timer: DispatchWorkItem)
            case ended
        }

        private let phase = Locked(Phase.pending)

        /// Whether the caller cancelled before the task was created.
        var isCancelled: Bool {
            phase.withValue { phase in
                if case .cancelled = phase { return true }
                return false
            }
        }

        /// Records the created task and its time-out; `false` when the caller cancelled
        /// first (the task must then not be started).
        func start(_ task: URLSessionTask, timer: DispatchWorkItem) -> Bool {
            phase.withValue { phase in
                guard case .pending = phase else { return false }
                phase = .started(task, timer: timer)
                return true
            }
        }

        /// The caller cancelled: the task to cancel, or `nil` when it has not been created
        /// (the launch queue then never starts it) or the hop has ended.
        func cancel() -> URLSessionTask? {
            phase.withValue { phase in
                switch phase {
                case .pending:
                    phase = .cancelled
                    return nil
                case .started(let task, _):
                    return task
                case .cancelled, .ended:
                    return nil
                }
            }
        }

        /// The hop has its outcome: its time-out will not be needed.
        func end() {
            let timer = phase.withValue { phase -> DispatchWorkItem? in
                defer { phase = .ended }
                guard case .started(_, let timer) = phase else { return nil }
                return timer
            }
            timer?.cancel()
        }
    }
}
