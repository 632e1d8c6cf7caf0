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
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread { continuation.resume(with: Result { try work(flag.isSet) }) }
                thread.name = "Courier.BlockingIO"
                thread.start()
            }
        } onCancel: {
            flag.set()
        }
    }
}

/// A flag that one thread sets and another polls.
private final class CancellationFlag: @unchecked Sendable {  // `lock` guards `value`
    // @unchecked: `lock` guards `value`, the only mutable field.
    private let lock = NSLock()
    private var value = false

    var isSet: @Sendable () -> Bool {
        { [self] in lock.withLock { value } }
    }

    func set() {
        lock.withLock { value = true }
    }
}
