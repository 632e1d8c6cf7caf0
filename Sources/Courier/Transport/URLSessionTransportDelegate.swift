import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate behind ``URLSessionTransport``: collects each task's response and
/// body (or writes a download's body to its temporary file), reports progress, and applies
/// the header and challenge rules.
final class URLSessionTransportDelegate: NSObject, Sendable {
    /// One in-flight task. While it is in the delegate's table, its fields are only touched
    /// while holding the table's lock; once ``finishState(of:)`` has removed it, only by
    /// the caller that removed it.
    final class TaskState {
        let request: URLRequest
        let destination: DownloadDestination?
        let progress: (@Sendable (Int64, Int64?) -> Void)?
        /// Whether progress counts the bytes sent (an upload) rather than received.
        let reportsUpload: Bool
        /// The size of the body to upload, when known; the total for progress when
        /// `URLSession` does not know it (a streamed body).
        let uploadSize: Int64?
        /// The file an upload streams from; a new stream is opened on it when `URLSession`
        /// asks for the body again.
        let uploadFile: URL?
        /// Where a download's temporary file goes.
        let transferDirectory: URL
        /// Whether `URLSession` may send the request again on its own (see
        /// ``TransportRequest/isIdempotent``).
        let isIdempotent: Bool
        /// The largest body kept in memory, in bytes (after content decoding).
        let maximumBodySize: Int
        /// Whether the request has a body (inline, uploaded from memory or streamed).
        let hasBody: Bool
        var continuation: CheckedContinuation<Outcome, any Error>?
        var response: HTTPURLResponse?
        var data = Data()
        var receivedBytes: Int64 = 0
        /// The temporary file of a download whose answer is a success.
        var download: DownloadFile?
        /// Writing the download failed; the task was cancelled because of it.
        var fileError: (any Error)?
        /// Set when the transport cancelled the task itself to end an HTTP auth challenge.
        var challengeEnded = false
        /// Set when the caller cancelled; a cancellation then always wins.
        var cancelledByCaller = false
        /// Set when `URLSession` asked for the body again to resend the request and the
        /// transport refused; the task ends as a lost connection.
        var resendRefused = false
        /// Set when the in-memory body passed ``maximumBodySize``; the task was cancelled.
        var bodyTooLarge = false

        init(_ request: TransportRequest, transferDirectory: URL, maximumBodySize: Int) {
            self.request = request.urlRequest
            self.destination = request.downloadDestination
            self.progress = request.progress
            self.reportsUpload = request.body.isUpload
            switch request.body {
            case .inline:
                self.uploadSize = nil
                self.uploadFile = nil
            case .data(let data):
                self.uploadSize = Int64(data.count)
                self.uploadFile = nil
            case .file(let url):
                self.uploadSize = MultipartFormat.regularFileSize(url).map { Int64($0) }
                self.uploadFile = url
            }
            self.transferDirectory = transferDirectory
            self.isIdempotent = request.isIdempotent
            self.hasBody =
                request.body.isUpload || request.urlRequest.httpBody?.isEmpty == false
                || request.urlRequest.httpBodyStream != nil
            self.maximumBodySize = maximumBodySize
        }
    }

    /// What a finished task produced: the response and, for a download, its complete
    /// temporary file, which the caller moves to the destination (or removes).
    struct Outcome: Sendable {
        let response: Response
        let httpResponse: HTTPURLResponse
        let downloadedFile: URL?
    }

    // The lock guards the table and every field of every `TaskState` in it. It is taken
    // briefly, also around writing a download block, which keeps the order of blocks and the
    // file's life (write, discard) in one place.
    private let states = Locked<[Int: TaskState]>([:])

    func register(_ state: TaskState, for task: URLSessionTask) {
        states.withLock { $0[task.taskIdentifier] = state }
    }

    /// Ends `task` with `error` before it was started.
    func fail(_ task: URLSessionTask, with error: any Error) {
        let continuation = states.withLock { states -> CheckedContinuation<Outcome, any Error>? in
            let state = states.removeValue(forKey: task.taskIdentifier)
            defer { state?.continuation = nil }
            return state?.continuation
        }
        continuation?.resume(throwing: error)
    }

    /// Records that the caller cancelled `task`, just before the task is cancelled.
    func markCancelledByCaller(_ task: URLSessionTask) {
        withState(task) { $0.cancelledByCaller = true }
    }

    /// Runs `body` with `task`'s state under the lock; `nil` when the task is not (or no
    /// longer) registered.
    func withState<T>(_ task: URLSessionTask, _ body: (TaskState) -> T) -> T? {
        states.withLock {
            guard let state = $0[task.taskIdentifier] else { return nil }
            return body(state)
        }
    }

    /// Removes `task`'s state and takes its continuation, once.
    func finishState(of task: URLSessionTask) -> (TaskState, CheckedContinuation<Outcome, any Error>)? {
        states.withLock { states in
            guard let state = states.removeValue(forKey: task.taskIdentifier),
                let continuation = state.continuation
            else { return nil }
            state.continuation = nil
            return (state, continuation)
        }
    }
}
