import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// `data(for:)`, with the task created, started and cancelled on a dispatch queue rather
    /// than on the calling Swift Concurrency thread.
    ///
    /// On Linux, `dataTask(with:)`, `resume()` and `cancel()` wait synchronously for the one
    /// serial queue that every `URLSession` of the process shares (corelibs' own `data(for:)`
    /// calls them on the caller's thread). The suites run hundreds of requests at once in one
    /// process, and every test's admin calls waited there, on the few threads that all the
    /// suites' tasks share.
    public func dataStartedOffPool(for request: URLRequest) async throws -> (Data, URLResponse) {
        let started = StartedTask()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                Self.launchQueue.async {
                    let task = self.dataTask(with: request) { data, response, error in
                        if let data, let response {
                            continuation.resume(returning: (data, response))
                        } else {
                            continuation.resume(throwing: error ?? URLError(.badServerResponse))
                        }
                    }
                    if started.set(task) { task.resume() } else { task.cancel() }
                }
            }
        } onCancel: {
            if let task = started.cancel() { Self.launchQueue.async { task.cancel() } }
        }
    }

    private static let launchQueue = DispatchQueue(label: "CourierTestServer.launch")
}

/// The task of ``URLSession/dataStartedOffPool(for:)``, or the cancellation that came before it.
private final class StartedTask: @unchecked Sendable {
    // @unchecked: `lock` guards `task` and `cancelled`.
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    /// Records the task; `false` when the caller already cancelled.
    func set(_ task: URLSessionTask) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        self.task = task
        return !cancelled
    }

    /// Records the cancellation; the task to cancel, if it exists yet.
    func cancel() -> URLSessionTask? {
        lock.lock()
        defer { lock.unlock() }
        cancelled = true
        return task
    }
}
