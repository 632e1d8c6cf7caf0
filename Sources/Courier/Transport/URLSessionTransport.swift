import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real transport: sends requests with a `URLSession` that it creates and owns.
///
/// It drives delegate-based tasks rather than `URLSession`'s async methods, because only its
/// own delegate can make these guarantees on every platform:
///
/// - Redirects are followed by the transport itself, never by `URLSession` (which on Linux
///   follows a 307 without its body and turns a `file:` or `data:` `Location` into a request
///   for that path on the same server): decided from the 3xx response's own `Location`, a
///   301, 302, 303, 307 or 308 is followed at most 16 times, then the request fails with
///   `URLError(.httpTooManyRedirects)`. A 303 becomes a `GET` (a `HEAD` stays one), a 301 or
///   302 turns a `POST` into a `GET`, and a 307 or 308 keeps the method and sends the body
///   again, from memory or from its file.
/// - A credential stays with its origin. A redirect to another origin (scheme, host or
///   port, so `https` to `http` too) drops the `Authorization`, `Proxy-Authorization` and
///   `Cookie` headers and every credential-looking header (``CrossOriginRedirect``), as
///   OkHttp and browsers do; a same-origin redirect keeps them (the caller's `Cookie` too,
///   which the session's cookie storage adds to rather than replaces). A redirect that would take a
///   body carrying a credential (a `password` or `refresh_token` field, say:
///   ``CrossOriginRedirect/bodyCarriesCredential(_:contentType:)``) to another origin is not
///   followed.
/// - A redirect that is not followed comes back as the response, its `Location` for the
///   caller to read: one to a scheme other than `http` or `https` (or without a host), one
///   that would carry a credential in the body to another origin, and a 307 or 308 whose
///   body is a stream the caller set on the `URLRequest` (`httpBodyStream`), which can be
///   read only once.
/// - Every time-out holds, as `URLError(.timedOut)` naming the request:
///   `timeoutIntervalForRequest` (or the request's own `timeoutInterval`) for the next bytes,
///   and `timeoutIntervalForResource` for the whole request, redirects included, which
///   `URLSession` on Linux ignores and this transport enforces itself. Time-outs that
///   `URLSession` would trap on (infinite or huge) or cut to nothing (below a second) are
///   taken as whole seconds from 1 s to 30 days; zero, negative or NaN means no limit.
/// - A server that sends more than 32 interim (1xx) responses before its answer (`100
///   Continue` forever) is cut off with `URLError(.badServerResponse)`, whatever the
///   time-outs.
/// - A request that is not idempotent (``TransportRequest/isIdempotent``) is never sent
///   twice: when its kept-alive connection turns out to be closed after the body went out,
///   `URLSession` (libcurl on Linux) would send it again on a new connection; this transport
///   refuses and the request fails at once with `URLError(.networkConnectionLost)`. (On
///   Linux, a non-idempotent request without a body is therefore sent with an empty chunked
///   body, the only way to make libcurl ask before it resends.)
/// - A response body kept in memory is bounded (``maximumResponseBodySize``), however busy
///   the machine, and a body that cannot be decoded (corrupt gzip, say) fails with
///   `URLError(.cannotDecodeContentData)`, which ``RetryPolicy`` does not retry.
/// - A 401 carrying a `Basic` or `Digest` challenge comes back as a ``Response`` at once; on
///   Linux a plain task never completes on such a challenge.
/// - Failures that `URLSession` on Linux reports vaguely (`URLError(.unknown)`, libcurl's words
///   in the underlying error) get the code Apple's `URLSession` uses: a refused server
///   certificate is `serverCertificateHasBadDate` (expired), `serverCertificateNotYetValid`,
///   `serverCertificateHasUnknownRoot` or `serverCertificateUntrusted` (self-signed, another
///   host name); a response header line over libcurl's 100 KiB is `badServerResponse`, the
///   server having sent more than the client accepts; a proxy that refuses the tunnel
///   (`CONNECT`) is `userAuthenticationRequired` when it asks for proxy credentials (407, or
///   401), `cannotConnectToHost` otherwise, never a lost connection.
/// - Cancelling the calling `Task` cancels the transfer.
/// - Uploads stream from disk (a 100 MiB upload peaks at a few MiB above the process's
///   baseline on Linux), and downloads are written to disk as they arrive; neither is ever
///   held in memory whole.
///
/// By default there is no `URLCache`: API responses are rarely cacheable and skipping the
/// cache measured 1.10–1.16× faster on Linux. Pass a configuration to change that.
///
/// Two limits it cannot lift. On Linux, `URLSession` reads the body of a 301–308 whole, and
/// decoded, before the transport sees the response (it keeps it in case the redirect is not
/// followed), copying all of it again for every block that arrives, on the one queue that
/// every `URLSession` of the process shares. A hostile server's large redirect body is held
/// in memory and costs time quadratic in its size (a 16 MiB gzip bomb behind a 302 took
/// 12 s, 32 MiB a minute, stalling every other session meanwhile) until it ends or
/// `timeoutIntervalForResource` passes. `CurlTransport` drops a redirect's body as it
/// arrives and follows at once after 64 KiB: use it, or a short resource time-out, against
/// servers you do not trust. Nor can it read a response whose header holds bytes that are not
/// UTF-8 (a file name in ISO-8859-1, as old servers send it): `URLSession` on Linux refuses
/// it, and the request fails with `URLError(.cannotParseResponse)` naming it.
///
/// On Linux the session's delegate runs on `URLSession`'s own queue, inside libcurl's
/// callbacks (that is what bounds a body however busy the machine): a `progress` closure
/// given to ``send(_:)`` directly runs there too, so keep it short. ``Provider`` hands
/// progress on to the callback queue.
public final class URLSessionTransport: HTTPTransport {
    /// The session; its delegate is owned by this transport.
    let session: URLSession
    private let delegate: URLSessionTransportDelegate
    /// How long a whole request may take, redirects included, in seconds: the
    /// configuration's `timeoutIntervalForResource`, which the transport enforces itself
    /// (`URLSession` on Linux ignores it).
    let resourceTimeout: TimeInterval
    /// The cookie storage whose cookies the transport adds to each hop (see
    /// `addingStoredCookies(to:from:)`); `nil` when the configuration sets no cookies.
    private let cookieStorage: HTTPCookieStorage?

    /// The most bytes of one response body the transport held in memory at once since it was
    /// created (the body kept so far plus the block in hand); for the tests of the bound.
    package var largestBodyHeld: Int { delegate.largestBodyHeld }

    /// A transport with Courier's default configuration: `URLSessionConfiguration.default`
    /// without a `URLCache`.
    public convenience init() {
        self.init(configuration: Self.defaultConfiguration())
    }

    /// The default ``maximumResponseBodySize``: 32 MiB.
    public static let defaultMaximumResponseBodySize = 32 * 1024 * 1024

    /// The largest response body this transport keeps in memory, in bytes, counted after
    /// content decoding (so a small gzip body that inflates to gigabytes is caught too).
    ///
    /// A larger body fails the request with `URLError(.dataLengthExceedsMaximum)`, whose
    /// `NSURLErrorFailingURLErrorKey` is the URL that sent it; the transfer is cancelled as
    /// soon as the bound is passed (at once when the `Content-Length` announces it). The
    /// successful body of a download goes to its file and is not limited; its error body
    /// (a 404 page, say) is.
    ///
    /// libcurl decodes the body (swift-corelibs-foundation always asks it to, and a hostile
    /// server sends gzip whatever `Accept-Encoding` says); on Linux each decoded block reaches
    /// the transport inside libcurl's own callback, before the next is decoded, so no more
    /// than the bound and the block in hand is ever held, and nothing past the bound is kept,
    /// however long the cancellation takes to land on a busy machine.
    public let maximumResponseBodySize: Int

    /// A transport whose session uses `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: the session's configuration;
    ///     ``defaultConfiguration()`` is Courier's default.
    ///   - maximumResponseBodySize: the largest response body kept in memory, in bytes; see
    ///     ``maximumResponseBodySize``. Values below 0 count as 0.
    public init(
        configuration: URLSessionConfiguration,
        maximumResponseBodySize: Int = URLSessionTransport.defaultMaximumResponseBodySize
    ) {
        self.maximumResponseBodySize = max(0, maximumResponseBodySize)
        let (configuration, cookieStorage) = Self.cookieHandling(Self.honouredConfiguration(configuration))
        self.cookieStorage = cookieStorage
        self.resourceTimeout = Self.resourceLimit(configuration.timeoutIntervalForResource)
        let delegate = URLSessionTransportDelegate()
        #if canImport(FoundationNetworking)
            let queue: OperationQueue = InlineDelegateQueue(label: "Courier.URLSessionTransport")
        #else
            let queue = OperationQueue()
            queue.name = "Courier.URLSessionTransport"
            queue.maxConcurrentOperationCount = 1
        #endif
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        // The session retains its delegate until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    /// `URLSessionConfiguration.default` without a URL cache.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpAdditionalHeaders = ["User-Agent": defaultUserAgent]
        return configuration
    }

    /// Sends `request`; see ``HTTPTransport/send(_:)``.
    ///
    /// Uploads stream from memory or disk, and their progress counts the bytes sent. On
    /// Linux a file is sent as a stream, with `Transfer-Encoding: chunked`: see
    /// ``TransportRequest/Body/file(_:)``. A download is a data task whose successful body
    /// is written block by block to a temporary file, then moved where its destination says;
    /// a cancelled or failed download removes that file, and `URLSession` keeps no temporary
    /// file of its own (on Linux, a cancelled `downloadTask` leaves its partial file in
    /// `/tmp`).
    public func send(_ request: TransportRequest) async throws -> Response {
        let started = DispatchTime.now()
        let deadline = started + .nanoseconds(Int(Delay.nanoseconds(resourceTimeout)))
        var hop = request
        var redirects = 0
        var sentBytes: Int64 = 0
        while true {
            let outcome = try await send(hop: hop, originalRequest: request.urlRequest, deadline: deadline)
            sentBytes += outcome.hop.sentBytes
            guard let next = outcome.redirect else {
                let response = try await placed(outcome, destination: request.downloadDestination)
                return response.withMetrics(
                    Self.metrics(
                        of: outcome.hop, started: started.uptimeNanoseconds, sentBytes: sentBytes,
                        redirects: redirects))
            }
            guard redirects < HTTPRedirect.maximumRedirects else {
                throw URLSessionTransportDelegate.tooManyRedirectsError(
                    request: request.urlRequest, url: request.urlRequest.url)
            }
            guard let signed = await HTTPRedirect.signed(next, after: hop, redirect: outcome.httpResponse) else {
                // No request for the hop could be made: the 3xx is the answer.
                let response = Response(
                    statusCode: outcome.response.statusCode, data: Data(), request: request.urlRequest,
                    response: outcome.httpResponse)
                return response.withMetrics(
                    Self.metrics(
                        of: outcome.hop, started: started.uptimeNanoseconds, sentBytes: sentBytes,
                        redirects: redirects))
            }
            redirects += 1
            hop = signed
        }
    }

    /// Sends one hop of a request (the request itself, or where a redirect led) as one task,
    /// cancelled when the calling task is, or when `deadline` passes.
    private func send(hop: TransportRequest, originalRequest: URLRequest, deadline: DispatchTime) async throws
        -> URLSessionTransportDelegate.Outcome
    {
        guard DispatchTime.now() < deadline else {
            throw URLSessionTransportDelegate.resourceTimedOutError(
                request: hop.urlRequest, url: hop.urlRequest.url, timeout: resourceTimeout)
        }
        let state = URLSessionTransportDelegate.TaskState(
            hop, originalRequest: originalRequest, transferDirectory: TransferDirectory.current,
            maximumBodySize: maximumResponseBodySize, resourceTimeout: resourceTimeout)
        let launch = HopLaunch()
        defer { launch.end() }
        defer { delegate.received() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                state.continuation = continuation
                guard !Task.isCancelled else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                // Created and started off the caller's thread: see `launchQueue()`. The state
                // is handed over whole: from here on only the delegate's lock reaches it.
                nonisolated(unsafe) let handedOver = state
                let queue = Self.launchQueue()
                queue.async { [self] in
                    launchTask(for: hop, state: handedOver, launch: launch, deadline: deadline, queue: queue)
                }
            }
        } onCancel: { [delegate] in
            // A task not created yet is never started (the launch queue sees the mark).
            guard let task = launch.cancel() else { return }
            delegate.markCancelledByCaller(task)
            // Never wait here for the session's queue: this handler runs under the calling
            // task's own lock, which resuming its continuation (on that queue, on Linux) may
            // need; `cancel()` waits for the queue. (The deadlock corelibs' `data(for:)` had.)
            URLSessionTransportDelegate.cancelSoon(task)
        }
    }

    /// Creates and starts a hop's task, on `queue` (one of the launch queues, where its
    /// time-out will cancel it too); a hop that the caller cancelled meanwhile fails without
    /// one.
    private func launchTask(
        for hop: TransportRequest, state: URLSessionTransportDelegate.TaskState, launch: HopLaunch,
        deadline: DispatchTime, queue: DispatchQueue
    ) {
        guard !launch.isCancelled else {
            delegate.fail(unstarted: state, with: CancellationError())
            return
        }
        let task = makeTask(for: hop)
        delegate.register(state, for: task)
        let timer = DispatchWorkItem { [delegate] in
            if delegate.markTimedOut(task) { task.cancel() }
        }
        guard launch.start(task, timer: timer) else {
            // Cancelled while the task was being created: end it before it sends anything.
            delegate.fail(task, with: CancellationError())
            task.cancel()
            return
        }
        queue.asyncAfter(deadline: deadline, execute: timer)
        task.resume()
    }

    /// What the attempt cost: on Linux, where swift-corelibs-foundation delivers no task
    /// metrics (swift-corelibs-foundation #4988), what the transport measured itself — the
    /// total, the time to the answer's head, the bytes — and, where the platform measures the
    /// task, the rest of its figures for the last hop.
    static func metrics(
        of last: URLSessionTransportDelegate.HopMeasurement, started: UInt64, sentBytes: Int64, redirects: Int
    )
        -> TransferMetrics
    {
        let ended = DispatchTime.now().uptimeNanoseconds
        var metrics = last.platform ?? TransferMetrics()
        metrics.total = Double(ended &- started) / 1_000_000_000
        if let respondedAt = last.respondedAt {
            metrics.timeToFirstByte = Double(respondedAt &- started) / 1_000_000_000
        }
        metrics.bytesSent = max(sentBytes, metrics.bytesSent ?? 0)
        metrics.bytesReceived = metrics.bytesReceived ?? last.receivedBytes
        metrics.redirectCount = redirects
        return metrics
    }

    /// The response of a finished request; a download's file is placed where its
    /// destination says.
    private func placed(_ outcome: URLSessionTransportDelegate.Outcome, destination: DownloadDestination?)
        async throws -> Response
    {
        guard let file = outcome.downloadedFile, let destination else { return outcome.response }
        // The transfer is complete: the file is placed even if the caller cancels now.
        let placed = try await BlockingIO.run { _ in
            try DownloadPlacement.move(file, response: outcome.httpResponse, destination: destination)
        }
        let response = outcome.response
        return Response(
            statusCode: response.statusCode, data: Data(), request: response.request, response: response.response,
            fileURL: placed)
    }

    private func makeTask(for hop: TransportRequest) -> URLSessionTask {
        var request = hop
        request.urlRequest = Self.addingStoredCookies(to: Self.honouredRequest(hop.urlRequest), from: cookieStorage)
        switch request.body {
        case .inline:
            #if canImport(FoundationNetworking)
                // libcurl resends a request without a body on a new connection silently, never
                // asking the delegate (an empty upload body does not change that). With an
                // empty stream body it must ask for the body again first, which the delegate
                // refuses for a non-idempotent request. The price: such a request goes out
                // with `Transfer-Encoding: chunked` and an empty body instead of no body.
                if !request.isIdempotent, request.urlRequest.httpBody == nil,
                    request.urlRequest.httpBodyStream == nil
                {
                    var streamed = request.urlRequest
                    streamed.httpBodyStream = InputStream(data: Data())
                    return session.dataTask(with: streamed)
                }
            #endif
            return session.dataTask(with: request.urlRequest)
        case .data(let data):
            return session.uploadTask(with: request.urlRequest, from: data)
        case .file(let url):
            #if canImport(FoundationNetworking)
                // swift-corelibs-foundation reads a `fromFile` body with DispatchIO and wakes
                // libcurl when a read completes; a read that completes after the transfer has
                // ended (a cancelled or failed upload) crashes the process (a forced `try` on
                // curl_easy_pause, error 43). A stream body is read synchronously, as libcurl
                // asks for it. corelibs cannot tell libcurl a stream's length, so it goes
                // chunked; a Content-Length beside it would make the request invalid.
                var streamed = request.urlRequest
                streamed.httpBodyStream = InputStream(url: url)
                return session.dataTask(with: streamed)
            #else
                return session.uploadTask(with: request.urlRequest, fromFile: url)
            #endif
        }
    }
}
