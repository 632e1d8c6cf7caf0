// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request on its way through the loop: the hop being sent (a redirect starts a new
/// one), what has arrived so far, and the continuation that gets the outcome.
///
/// Before ``CurlLoop/submit(_:)`` only the sending task touches it; from then on only the
/// loop thread does, in the loop itself and in libcurl's callbacks, except the cancellation
/// flag (behind `cancellationLock`), which the task's cancellation handler sets.
final class CurlTransfer: @unchecked Sendable {
    // @unchecked: the fields are confined as described above (`submit`'s lock orders the
    // hand-over); `cancellationLock` guards `cancellationRequested`, the only shared field.

    /// A finished transfer: the response and, for a download, its complete temporary file.
    struct Outcome: @unchecked Sendable {
        // @unchecked: immutable; `HTTPURLResponse` is an immutable object.
        let response: Response
        let httpResponse: HTTPURLResponse
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
    var continuation: CheckedContinuation<Outcome, any Error>?

    private let cancellationLock = NSLock()
    private var cancellationRequested = false

    // Loop thread only, from here on.
    var hop: Hop
    var redirectCount = 0
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

    init(plan: CurlRequestPlan) {
        self.plan = plan
        self.hop = Hop(url: plan.url, method: plan.method, headers: plan.headers, body: plan.body)
    }

    /// Marks the transfer cancelled; the loop notices it when the transfer arrives, or is told.
    func requestCancellation() {
        cancellationLock.withLock { cancellationRequested = true }
    }

    var isCancellationRequested: Bool {
        cancellationLock.withLock { cancellationRequested }
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
