/// One step of a transfer's progress; the last one carries the ``Response``.
public struct ProgressResponse: Sendable {
    /// The fraction done, from 0 to 1. It never goes back, and is 1 on the last element.
    public let progress: Double
    /// Bytes transferred so far (sent for an upload, received otherwise).
    public let completedBytes: Int64
    /// The total, when the server or the body size says it.
    public let totalBytes: Int64?
    /// The response, on the last element only.
    public let response: Response?

    /// Creates a progress step.
    public init(progress: Double, completedBytes: Int64, totalBytes: Int64?, response: Response? = nil) {
        self.progress = progress
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.response = response
    }

    /// Whether the transfer has finished (the response has arrived).
    public var completed: Bool { response != nil }
}

/// Progress reporting for the request running in the current task.
///
/// A task-local, so that the progress forms can go through the overridable
/// `request(_:)` (and its refresh and replay logic) without a second entry point.
enum ProgressContext {
    @TaskLocal static var current: (@Sendable (Int64, Int64?) -> Void)?
}
