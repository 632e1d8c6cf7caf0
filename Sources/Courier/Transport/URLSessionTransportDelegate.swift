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
        /// The request this task sends: the caller's, or where a redirect led.
        let hop: TransportRequest
        /// The request as the caller gave it, which the ``Response`` carries.
        let originalRequest: URLRequest
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
        /// How long the whole request may take, redirects included (for the error's text).
        let resourceTimeout: TimeInterval
        var continuation: CheckedContinuation<Outcome, any Error>?
        var response: HTTPURLResponse?
        var data = Data()
        var receivedBytes: Int64 = 0
        /// When the answer's head arrived (monotonic nanoseconds), for the metrics' time to
        /// first byte.
        var respondedAt: UInt64?
        /// Bytes of body sent, as `URLSession` reported them.
        var sentBytes: Int64 = 0
        /// The platform's own measurements of the task, where it makes them (not on Linux).
        var platformMetrics: TransferMetrics?
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
        /// Set when the request's resource time-out passed; the task was cancelled.
        var timedOut = false
        /// How many interim (1xx) heads arrived; past ``URLSessionTransportDelegate/maximumInterimResponses``
        /// the task was cancelled.
        var interimResponses = 0
        /// The request to send next when the response is a redirect the transport follows;
        /// the redirect's own body is then dropped.
        var redirect: TransportRequest?

        init(
            _ hop: TransportRequest, originalRequest: URLRequest, transferDirectory: URL, maximumBodySize: Int,
            resourceTimeout: TimeInterval
        ) {
            self.hop = hop
            self.originalRequest = originalRequest
            self.destination = hop.downloadDestination
            self.progress = hop.progress
            self.reportsUpload = hop.body.isUpload
            switch hop.body {
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
            self.isIdempotent = hop.isIdempotent
            self.maximumBodySize = maximumBodySize
            self.resourceTimeout = resourceTimeout
        }

        /// The request this task sends.
        var request: URLRequest { hop.urlRequest }
    }

    /// What a finished task produced: the response and, for a download, its complete
    /// temporary file, which the caller moves to the destination (or removes).
    struct Outcome: Sendable {
        let response: Response
        let httpResponse: HTTPURLResponse
        let downloadedFile: URL?
        /// The request to send next, when the response is a redirect the transport follows.
        let redirect: TransportRequest?
        /// What this hop measured.
        let hop: HopMeasurement
    }

    /// What one hop of a request measured, for its ``TransferMetrics``.
    struct HopMeasurement: Sendable {
        /// When the answer's head arrived (monotonic nanoseconds).
        let respondedAt: UInt64?
        let sentBytes: Int64
        let receivedBytes: Int64
        /// The platform's own measurements, where it makes them.
        let platform: TransferMetrics?
    }

    /// The most interim (1xx) responses one request may receive before its answer: a server
    /// that sends `100 Continue` forever is cut off, whatever the time-outs.
    static let maximumInterimResponses = 32

    // The lock guards the table and every field of every `TaskState` in it. It is taken
    // briefly, also around writing a download block, which keeps the order of blocks and the
    // file's life (write, discard) in one place.
    private let states = Locked<[Int: TaskState]>([:])
    /// The most bytes of one response body held at once, kept plus the block in hand.
    private let bodyHighWater = Locked(0)

    /// The most bytes of one response body that the delegate held at once since it was
    /// created: the body kept so far plus the block being handed over. On Linux the blocks
    /// arrive inside libcurl's own callback (see `InlineDelegateQueue`), so nothing else
    /// holds them: this is what proves ``URLSessionTransport/maximumResponseBodySize``.
    var largestBodyHeld: Int { bodyHighWater.value }

    /// Notes that `bytes` of one body were held at once.
    func recordBodyHeld(_ bytes: Int) {
        bodyHighWater.withValue { $0 = max($0, bytes) }
    }

    func register(_ state: TaskState, for task: URLSessionTask) {
        states.withValue { $0[task.taskIdentifier] = state }
    }

    /// Ends `task` with `error` before it was started.
    func fail(_ task: URLSessionTask, with error: any Error) {
        let continuation = states.withValue { states -> CheckedContinuation<Outcome, any Error>? in
            let state = states.removeValue(forKey: task.taskIdentifier)
            defer { state?.continuation = nil }
            return state?.continuation
        }
        if let continuation { resume(continuation, with: .failure(error)) }
    }

    /// Ends a hop that never got a task (its caller cancelled before it was created).
    func fail(unstarted state: TaskState, with error: any Error) {
        let continuation = states.withValue { _ -> CheckedContinuation<Outcome, any Error>? in
            defer { state.continuation = nil }
            return state.continuation
        }
        if let continuation { resume(continuation, with: .failure(error)) }
    }

    /// Resumes a task's continuation with what its task ended with, published under the
    /// delegate's lock first; the awaiting side calls ``received()``.
    ///
    /// The Swift runtime orders the two sides with atomics the thread sanitizer cannot see
    /// when a continuation is resumed before its task has suspended (a fast loopback answer
    /// does that): the response built on the session's queue would then be reported as a
    /// race when the caller reads it. Passing through one lock makes the order visible.
    func resume(_ continuation: CheckedContinuation<Outcome, any Error>, with result: Result<Outcome, any Error>) {
        states.withValue { _ in }
        continuation.resume(with: result)
    }

    /// The awaiting side of ``resume(_:with:)``: called once the continuation returned.
    func received() {
        states.withValue { _ in }
    }

    /// Records that the caller cancelled `task`, just before the task is cancelled.
    func markCancelledByCaller(_ task: URLSessionTask) {
        withState(task) { $0.cancelledByCaller = true }
    }

    /// Records that `task` ran out of time, just before it is cancelled; `false` when it
    /// had already finished.
    func markTimedOut(_ task: URLSessionTask) -> Bool {
        withState(task) { $0.timedOut = true } != nil
    }

    /// Runs `body` with `task`'s state under the lock; `nil` when the task is not (or no
    /// longer) registered.
    func withState<T>(_ task: URLSessionTask, _ body: (TaskState) -> T) -> T? {
        states.withValue {
            guard let state = $0[task.taskIdentifier] else { return nil }
            return body(state)
        }
    }

    /// Removes `task`'s state and takes its continuation, once.
    func finishState(of task: URLSessionTask) -> (TaskState, CheckedContinuation<Outcome, any Error>)? {
        states.withValue { states in
            guard let state = states.removeValue(forKey: task.taskIdentifier),
                let continuation = state.continuation
            else { return nil }
            state.continuation = nil
            return (state, continuation)
        }
    }
}
