// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that drives libcurl directly: several times faster than
/// `URLSessionTransport` on Linux, for a service that sends many API requests.
///
/// Adopting it is one line:
///
/// ```swift
/// let provider = Provider<API>(transport: CurlTransport())
/// ```
///
/// Each transport runs one thread of its own, on which libcurl's multi interface sends every
/// request: connections are kept alive and reused, and the handles of finished requests are
/// reused by the next. It keeps every guarantee `URLSessionTransport` makes:
///
/// - Redirects are followed by the transport (a 303 becomes a `GET`, a 307 or 308 keeps its
///   method and body, at most ``Configuration/maximumRedirects`` hops), and a redirect to
///   another origin drops `Authorization`, `Cookie`, `Proxy-Authorization` and every
///   credential-looking header (`CrossOriginRedirect`).
/// - A 401 comes back as a `Response` with its body, whatever its challenge.
/// - Cancelling the calling `Task` stops the transfer at once.
/// - Uploads stream from memory or disk; downloads are written to a file as they arrive and a
///   failed or cancelled one leaves no file; bodies kept in memory are bounded.
/// - `gzip` and `deflate` bodies are decoded; a corrupt one fails with
///   `URLError(.cannotDecodeContentData)`.
/// - A request that is not idempotent (a `POST`, say) is never sent a second time behind the
///   caller's back: when libcurl would resend it on a fresh connection, it fails with
///   `URLError(.networkConnectionLost)` instead.
/// - TLS is verified against the system's trust store, and a public key can be pinned
///   (``Configuration/pinnedPublicKey``), which `URLSession` on Linux cannot do.
/// - HTTPS negotiates HTTP/2 by ALPN (HTTP/1.1 when the server offers nothing else), and
///   concurrent requests to one host share one HTTP/2 connection.
/// - Connections are limited per host and in all (``Configuration/maximumConnectionsPerHost``,
///   ``Configuration/maximumConnections``): requests past the limits wait for a connection.
/// - A request without its own `User-Agent` or `Accept-Language` gets
///   ``defaultUserAgent`` and ``defaultAcceptLanguage``.
///
/// Progress callbacks run on the transport's thread: keep them short.
///
/// A service that stops on `SIGTERM` calls ``close()``: the thread ends and every connection is
/// closed; requests sent after it fail with ``CurlTransportClosedError``.
public final class CurlTransport: HTTPTransport {
    let loop: CurlLoop
    private let configuration: Configuration

    /// The largest response body this transport keeps in memory, in bytes (after content
    /// decoding); see ``Configuration/maximumResponseBodySize``.
    public var maximumResponseBodySize: Int { configuration.maximumResponseBodySize }

    /// A transport with the default ``Configuration``.
    public convenience init() {
        self.init(configuration: Configuration())
    }

    /// A transport with `configuration`; it starts its thread at once.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.loop = CurlLoop(
            limits: .init(
                idle: configuration.maximumIdleConnections, perHost: configuration.maximumConnectionsPerHost,
                total: configuration.maximumConnections))
    }

    deinit {
        loop.stop()
    }

    /// Closes the transport: ends its thread and closes its connections, and returns once they
    /// are closed. Requests still in flight fail with a ``CurlTransportClosedError`` whose
    /// ``CurlTransportClosedError/wasInFlight`` is `true` (they may have reached the server), and
    /// every request sent afterwards fails with one at once, sending nothing. Calling it again
    /// does nothing more.
    ///
    /// Call it when the service stops, once its last requests are answered:
    ///
    /// ```swift
    /// let transport = CurlTransport()
    /// signal(SIGTERM, SIG_IGN)
    /// let terminate = DispatchSource.makeSignalSource(signal: SIGTERM)
    /// terminate.setEventHandler {
    ///     Task {
    ///         await server.stopAcceptingWork()  // your own: finish what is in flight
    ///         await transport.close()
    ///         exit(0)
    ///     }
    /// }
    /// terminate.resume()
    /// ```
    ///
    /// Without it, the thread and connections end when the last reference to the transport
    /// goes (in-flight requests then fail with `CancellationError`).
    public func close() async {
        await loop.close()
    }

    /// Whether ``close()`` was called: every request now fails with
    /// ``CurlTransportClosedError``.
    public var isClosed: Bool { loop.isClosedForSending }

    /// Sends `request`; see `HTTPTransport.send(_:)`.
    ///
    /// - Throws: a `URLError` for a network failure (with the failing URL in its `userInfo`),
    ///   ``CurlTransportError`` for a request that cannot be sent as it is,
    ///   ``CurlTransportClosedError`` once the transport is closed (``close()``), or
    ///   `CancellationError` when the calling task was cancelled.
    public func send(_ request: TransportRequest) async throws -> Response {
        guard request.redirectSigner != nil else { return try await sendFollowing(request) }
        // Same-origin redirects come back from the loop: each hop's request is made by the
        // signer (a DPoP proof of its own), then sent as a transfer of its own on the same
        // connections. Redirects to other origins the loop follows as always.
        var hop = request
        var redirects = 0
        while true {
            let response = try await sendFollowing(hop)
            redirects += response.metrics?.redirectCount ?? 0
            guard let httpResponse = response.response,
                case .follow(let next) = HTTPRedirect.decide(after: hop, response: httpResponse)
            else {
                return Self.answer(response, to: request, redirects: redirects)
            }
            guard redirects < configuration.maximumRedirects else {
                throw URLError(
                    .httpTooManyRedirects,
                    userInfo: [
                        NSURLErrorFailingURLErrorKey: request.urlRequest.url as Any,
                        NSLocalizedDescriptionKey: "More than \(configuration.maximumRedirects) redirects.",
                    ])
            }
            guard let signed = await HTTPRedirect.signed(next, after: hop, redirect: httpResponse) else {
                return Self.answer(response, to: request, redirects: redirects)
            }
            redirects += 1
            hop = signed
        }
    }

    /// `response`, the last hop's, as the answer to `request`: the request as the caller sent
    /// it, and the redirects followed on the way.
    private static func answer(_ response: Response, to request: TransportRequest, redirects: Int) -> Response {
        var metrics = response.metrics
        metrics?.redirectCount = redirects
        return Response(
            statusCode: response.statusCode, data: response.data, request: request.urlRequest,
            response: response.response, fileURL: response.fileURL, metrics: metrics)
    }

    /// Sends `request`, following the redirects the loop follows itself.
    private func sendFollowing(_ request: TransportRequest) async throws -> Response {
        if loop.isClosedForSending {
            throw CurlTransportClosedError(
                method: request.urlRequest.httpMethod ?? "GET",
                url: request.urlRequest.url ?? URL(string: "about:blank")!, wasInFlight: false)
        }
        // Only a download writes a file; the directory is the task's, so it is read here.
        let plan = try CurlRequestPlan(
            request, configuration: configuration, isIdempotent: request.isIdempotent,
            transferDirectory: request.downloadDestination == nil ? nil : TransferDirectory.current)
        let transfer = CurlTransfer(plan: plan)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                if Task.isCancelled {
                    transfer.requestCancellation()
                }
                loop.submit(transfer)
            }
        } onCancel: { [loop] in
            transfer.requestCancellation()
            loop.cancel(transfer)
        }
        let outcome = try transfer.takeOutcome()
        guard let file = outcome.downloadedFile, let destination = request.downloadDestination else {
            return outcome.response
        }
        let response = outcome.response
        // Built here, off the loop thread (corelibs never fails to build one).
        guard let httpResponse = response.response else {
            try? FileManager.default.removeItem(at: file)
            throw URLError(.badServerResponse)
        }
        // The transfer is complete: the file is placed even if the caller cancels now.
        let placed = try await CurlFileWork.run {
            try DownloadPlacement.move(file, response: httpResponse, destination: destination)
        }
        return Response(
            statusCode: response.statusCode, data: Data(), request: response.request, response: httpResponse,
            fileURL: placed, metrics: response.metrics)
    }
}

#endif
