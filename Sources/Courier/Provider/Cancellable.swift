/// A request started with a completion handler, which can be cancelled.
public protocol Cancellable: Sendable {
    /// Whether ``cancel()`` has been called.
    var isCancelled: Bool { get }
    /// Cancels the request: the transfer stops and the completion handler receives
    /// ``CourierError/cancelled`` (unless the request had already finished).
    func cancel()
}

/// The ``Cancellable`` for a request running in a Swift `Task`.
struct TaskCancellable: Cancellable {
    let task: Task<Void, Never>

    var isCancelled: Bool { task.isCancelled }

    func cancel() { task.cancel() }
}
