// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request on its way through the loop: the hop being sent (a redirect starts a new
/// one), what has arrived so far, and the continuation that resumes the sending task.
///
/// Before ``CurlLoop/submit(_:)`` only the sending task touches it; from then on only the
/// thread that drives libcurl does (the loop's driver lock held), in the loop and in libcurl's
/// callbacks, except the cancellation flag, which the task's cancellation handler sets, and
/// the outcome, which the task takes once resumed (both behind `lock`).
final class CurlTransfer: @unchecked Sendable {
    // @unchecked: the fields are confined as described above (the loop's locks order the
    // hand-over); `lock` guards `cancellationRequested` and `delivered`, the shared fields.

    /// A finished transfer: the response and, for a download, its complete temporary file.
    struct Outcome: Sendable {
        let response: Response
        let downloadedFile: URL?
    }

    /// The hop being sent: the original request, or where a redirect led.
    struct Hop {
        var url: URL
        var method: String
        var headers: [(name: String, value: String)]
        var body: CurlRequestPlan.BodySource
    }

    let plan: CurlRequestPlan
    var continuation: CheckedContinuation<Void, Never>?

    private let lock = NSLock()
    private var cancellationRequested = false
    /// The outcome, from ``deliver(_:)`` until the task takes it.
    private var delivered: Result<Outcome, any Error>?

    // Under the loop's driver lock, from here on.
    var hop: Hop
    var redirectCount = 0
    /// What the hops so far cost, for the response's metrics.
    var metrics = CurlAttemptMetrics()
    /// The loop's poller: the sockets libcurl opens for the transfer, and the time as of the
    /// moment the driver lock was taken (for ``lastActivity``).
    var poller: CurlPoller?
    /// When the request was handed to the loop (monotonic nanoseconds).
    var startedAt: UInt64 = 0
    /// When a byte last moved, or the hop started (monotonic nanoseconds).
    var lastActivity: UInt64 = 0
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var errorBuffer: UnsafeMutablePointer<CChar>?
    var head = CurlResponseHead()
    /// The body is a redirect's, which is dropped.
    var discardsBody = false
    /// Where the redirect being received leads.
    var redirectTarget: URL?
    /// How much of the redirect's body was dropped so far.
    var discardedBytes = 0
    /// The redirect's body was too long to read: the hop was stopped, and is followed.
    var followsAtOnce = false
    var data = Data()
    var receivedBytes: Int64 = 0
    /// The decoded body's length, when the response says it (for progress).
    var expectedBytes: Int64?
    var download: CurlDownloadFile?
    var upload: CurlUploadReader?
    var sentBytes: Int64 = 0
    /// How many times libcurl began to send this hop (more than once means a resend).
    var sendAttempts = 0
    /// Why a callback stopped the transfer; it wins over libcurl's own error code.
    var failure: (any Error)?
    /// How many times the hop was sent again after its HTTP/2 stream went unprocessed
    /// (`mayResendUnprocessed(_:message:)`).
    var unprocessedResends = 0
    /// The next hop must go out on a new connection, not a kept-alive one.
    var needsFreshConnection = false

    init(plan: CurlRequestPlan) {
        self.plan = plan
        self.hop = Hop(url: plan.url, method: plan.method, headers: plan.headers, body: plan.body)
    }

    /// Marks the transfer cancelled; the loop notices it when the transfer arrives, or is told.
    func requestCancellation() {
        lock.withLock { cancellationRequested = true }
    }

    var isCancellationRequested: Bool {
        lock.withLock { cancellationRequested }
    }

    /// Hands `result` to the sending task and resumes it, once: under the driver lock, or by
    /// the sending task itself when the loop has stopped before taking the transfer.
    ///
    /// The outcome goes through `lock` rather than the continuation: when the loop resumes a
    /// task that has not suspended yet, the runtime's fast path carries no happens-before
    /// that the thread sanitizer can see, and it would report the response's fields as a race.
    func deliver(_ result: Result<Outcome, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        lock.withLock { delivered = result }
        continuation.resume()
    }

    /// The outcome ``deliver(_:)`` handed over; the sending task, once resumed.
    func takeOutcome() throws -> Outcome {
        let result = lock.withLock { () -> Result<Outcome, any Error>? in
            defer { delivered = nil }
            return delivered
        }
        // Never nil: the task is resumed only after its outcome is stored.
        return try (result ?? .failure(CancellationError())).get()
    }

    /// When the transfer times out, unless a byte moves first (monotonic nanoseconds).
    var deadline: UInt64 {
        min(lastActivity &+ plan.idleTimeout, startedAt &+ UInt64(plan.resourceTimeout) &* 1_000_000)
    }

    /// Forgets what the previous hop received, for the next one.
    func resetForNextHop() {
        head = CurlResponseHead()
        discardsBody = false
        redirectTarget = nil
        discardedBytes = 0
        followsAtOnce = false
        data = Data()
        receivedBytes = 0
        expectedBytes = nil
        sentBytes = 0
        sendAttempts = 0
        failure = nil
        upload?.close()
        upload = nil
    }

    /// Releases what the transfer holds besides its easy handle: the header list, the
    /// error buffer, the upload file, and (unless `keepDownload`) the download's file.
    func releaseResources(keepDownload: Bool) {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        errorBuffer?.deallocate()
        errorBuffer = nil
        upload?.close()
        upload = nil
        if !keepDownload {
            download?.discard()
            download = nil
        }
    }

    /// libcurl's message for the last error, if it wrote one.
    var curlErrorMessage: String? {
        guard let errorBuffer, errorBuffer.pointee != 0 else { return nil }
        return String(cString: errorBuffer)
    }
}

#endif
