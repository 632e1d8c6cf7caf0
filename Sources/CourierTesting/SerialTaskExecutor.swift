import Dispatch
import Foundation

/// An executor for the tasks of a test that tells the test when every one of them is
/// suspended: the way to know that requests have reached the place where they wait inside
/// the code under test — a shared call, a per-host queue, a refresh in flight — when that
/// code sends no signal the test could wait for.
///
/// Start the tasks with it as their executor preference; they run one job at a time, on one
/// thread of the executor's own. ``waitUntilIdle()`` returns once none of them can run: each
/// is suspended, waiting for something the test holds (a ``Gate``, a ``GatedTransport``, a
/// held refresh) or has finished.
///
/// ```swift
/// let executor = SerialTaskExecutor()
/// let transport = GatedTransport(answering: ClosureTransport.successful())
/// let provider = Provider<MyAPI>(transport: transport, trackInflights: true)
/// let tasks = (0..<25).map { _ in
///     Task(executorPreference: executor) { try await provider.request(.profile) }
/// }
/// try await executor.waitUntilIdle()  // all 25 wait for the one shared call now
/// transport.open()
/// ```
///
/// What "idle" covers: the code these tasks run, including the methods of (default) actors
/// they call and the child tasks they start, which run on this executor too. What it does not:
/// unstructured `Task {}` and `Task.detached` work they start, which runs elsewhere (a refresh
/// an `AuthSession` runs, a shared call), and a task queued behind such work on a busy actor.
/// Hold that work yourself (with a ``Gate``) and wait for it with its own signal. Idle is a
/// moment: a task woken afterwards (by a transport answering, a timer) runs again.
///
/// There is no time-out: give the suite a `.timeLimit`, so that a task that never suspends
/// fails the test instead of hanging it.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public final class SerialTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue
    /// Jobs enqueued and not yet finished.
    private let pending = LockIsolated(0)

    /// Creates an executor with a serial queue of its own, named `label`.
    public init(label: String = "CourierTesting.SerialTaskExecutor") {
        queue = DispatchQueue(label: label)
    }

    /// Runs `job` on the executor's queue, after the jobs enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Counted before it is queued, so the executor is never idle while a job waits.
        pending.withValue { $0 += 1 }
        queue.async { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
            pending.withValue { $0 -= 1 }
        }
    }

    /// Waits until no job is queued or running: every task started on this executor is
    /// suspended or done. Returns at once if that is so now.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func waitUntilIdle() async throws {
        try await pending.wait { $0 == 0 }
    }
}
