import Dispatch
import Foundation

/// Runs blocking file work (writing a large multipart body, say) on a Dispatch queue, off
/// Swift Concurrency's few cooperative threads, and lets it notice when the calling task is
/// cancelled.
enum BlockingIO {
    private static let queue = DispatchQueue(
        label: "Courier.BlockingIO", qos: .utility, attributes: .concurrent)

    /// Runs `work` on a Dispatch queue and returns its result.
    ///
    /// `work` receives a function that says whether the calling task has been cancelled
    /// meanwhile; it should poll it and throw `CancellationError` when it says so.
    static func run<T: Sendable>(
        _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T
    ) async throws -> T {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    continuation.resume(with: Result { try work(flag.isSet) })
                }
            }
        } onCancel: {
            flag.set()
        }
    }
}

/// A flag that one thread sets and another polls.
private final class CancellationFlag: @unchecked Sendable {
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
