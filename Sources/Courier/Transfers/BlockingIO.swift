import Foundation

/// Runs blocking file work (writing a large multipart body, moving a download) on a thread
/// of its own: off Swift Concurrency's few cooperative threads, and off the Dispatch workers
/// through which `URLSession` delivers its callbacks (on Linux, libdispatch notices a blocked
/// worker only after a while). The work can notice when the calling task is cancelled.
enum BlockingIO {
    /// Runs `work` on a new thread and returns its result.
    ///
    /// `work` receives a function that says whether the calling task has been cancelled
    /// meanwhile; it should poll it and throw `CancellationError` when it says so.
    static func run<T: Sendable>(
        _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T
    ) async throws -> T {
        let cancelled = Locked(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread { continuation.resume(with: Result { try work({ cancelled.value }) }) }
                thread.name = "Courier.BlockingIO"
                thread.start()
            }
        } onCancel: {
            cancelled.withValue { $0 = true }
        }
    }
}
