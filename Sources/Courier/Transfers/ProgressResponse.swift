/// One step of an upload's or a download's progress; the last one carries the ``Response``.
///
/// ```swift
/// for try await step in provider.requestWithProgress(.upload(photo)) {
///     if let response = step.response {
///         print("done:", response.statusCode)
///     } else {
///         print("\(Int(step.progress * 100)) %, \(step.completedBytes) of \(step.totalBytes ?? 0) bytes")
///     }
/// }
/// ```
public struct ProgressResponse: Sendable {
    /// The fraction done, from 0 to 1: the bytes transferred over the total, with no ceiling.
    ///
    /// It reaches 1 when every byte has moved — for an upload, possibly before the server has
    /// answered — and the last element, which carries the response, is always exactly 1: use
    /// ``completed`` (or ``response``) to know the request has finished. It never goes back,
    /// also when a request is replayed after a token refresh, and it stays 0 while the total
    /// is unknown (a download without `Content-Length`).
    public let progress: Double
    /// Bytes transferred so far by the current attempt: sent, for an upload
    /// (`uploadFile`, `uploadMultipart`…); received, for anything else. A replayed request
    /// counts again from zero while ``progress`` holds.
    public let completedBytes: Int64
    /// The total, when the body size or the server's `Content-Length` says it.
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

    /// Whether the transfer has finished: this is the last element, with the response.
    public var completed: Bool { response != nil }
}
