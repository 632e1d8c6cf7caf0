import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends a prepared request and returns what the server answered.
///
/// ``URLSessionTransport`` is the real one. Tests and benchmarks plug in their own (see the
/// `CourierTesting` module); a transport only has to honour the request, the body and the
/// download destination, report progress if asked, and stop promptly when the calling task
/// is cancelled.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status code.
    ///
    /// - Throws: the network error (a `URLError`, say), or `CancellationError` when the
    ///   calling task was cancelled. The provider wraps it into a ``CourierError``.
    func send(_ request: TransportRequest) async throws -> Response
}

/// Everything a transport needs to send one request.
public struct TransportRequest: Sendable {
    /// Where the body comes from.
    ///
    /// An upload (``data(_:)`` or ``file(_:)``) reports progress in bytes sent; any other
    /// request reports bytes received, as Moya does.
    public enum Body: Sendable {
        /// The `URLRequest`'s own `httpBody` (or none).
        case inline
        /// Bytes uploaded from memory (a small multipart body).
        case data(Data)
        /// A file streamed from disk, never loaded whole.
        ///
        /// On Linux, ``URLSessionTransport`` sends it as a stream with
        /// `Transfer-Encoding: chunked` (swift-corelibs-foundation's file uploads can crash
        /// the process when they are cancelled); on Apple platforms it is an
        /// `uploadTask(with:fromFile:)` with a `Content-Length`.
        case file(URL)

        /// Whether the body is an upload, whose progress counts the bytes sent.
        public var isUpload: Bool {
            switch self {
            case .inline: false
            case .data, .file: true
            }
        }
    }

    /// The request as every plugin prepared it.
    public var urlRequest: URLRequest
    /// Where the body comes from.
    public var body: Body
    /// Where a download goes; `nil` for a request whose body is returned as data.
    ///
    /// A transport writes a successful (2xx) body to a temporary file as it arrives, moves
    /// it where the destination says, and returns a ``Response`` with empty `data` and the
    /// file's ``Response/fileURL``. Any other status keeps the destination untouched and
    /// returns the body as `data`. A cancelled or failed download leaves no file anywhere.
    public var downloadDestination: DownloadDestination?
    /// Called as bytes are sent (uploads, see ``Body``) or received, with the bytes so far
    /// and the total when known.
    public var progress: (@Sendable (_ completedBytes: Int64, _ totalBytes: Int64?) -> Void)?
    /// Whether sending this request twice has the same effect as sending it once.
    ///
    /// A transport may resend an idempotent request on its own (libcurl does, when a
    /// kept-alive connection turns out to be closed). It never resends a non-idempotent one:
    /// when the connection is lost after its body went out, the request fails with
    /// `URLError(.networkConnectionLost)`, and only a ``RetryPolicy`` that allows it may
    /// send it again.
    public var isIdempotent: Bool

    /// Makes the request of a redirect hop to the same origin: it is handed the request the
    /// transport is about to send (already at the `Location`, with its method and body after
    /// the redirect rules) and the 3xx that led there, and returns the request to send, or
    /// `nil` to stop and return the 3xx as the answer.
    ///
    /// For a credential made for one request — a DPoP proof names its URL and method and may be
    /// used once (RFC 9449) — each hop needs one of its own. ``Provider`` fills it for a
    /// request signed with a DPoP-bound token (and a DPoP session's token requests), so a
    /// transport needs no knowledge of DPoP.
    public typealias RedirectSigner = @Sendable (_ next: URLRequest, _ redirect: HTTPURLResponse) async -> URLRequest?

    /// Called for each redirect hop to the same origin as the hop before it (see
    /// ``RedirectSigner``); `nil` (the default): redirects are followed as they are. A
    /// transport that follows redirects itself calls it before it sends such a hop; across
    /// origins it is not called (the credential was dropped with `Authorization`).
    public var redirectSigner: RedirectSigner?

    /// Creates a transport request.
    ///
    /// - Parameters:
    ///   - urlRequest: the request as every plugin prepared it.
    ///   - body: where the body comes from.
    ///   - downloadDestination: where a download goes; `nil` returns the body as data.
    ///   - progress: called as bytes are sent or received.
    ///   - isIdempotent: whether the request may be sent twice; `nil` derives it from the
    ///     method: `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS` and `TRACE` are idempotent,
    ///     every other method is not (a request without a method is a `GET`). ``Provider``
    ///     passes the target's ``RetryableTarget/isIdempotent`` when it has one, else the
    ///     same rule.
    ///   - redirectSigner: makes each same-origin redirect hop's request (see ``RedirectSigner``).
    public init(
        urlRequest: URLRequest,
        body: Body = .inline,
        downloadDestination: DownloadDestination? = nil,
        progress: (@Sendable (_ completedBytes: Int64, _ totalBytes: Int64?) -> Void)? = nil,
        isIdempotent: Bool? = nil,
        redirectSigner: RedirectSigner?
    ) {
        self.urlRequest = urlRequest
        self.body = body
        self.downloadDestination = downloadDestination
        self.progress = progress
        self.isIdempotent = isIdempotent ?? Self.isIdempotent(method: urlRequest.httpMethod)
        self.redirectSigner = redirectSigner
    }

    /// A request for a transport to send, with no redirect signer: every redirect hop goes out
    /// with the request's own headers (those that may cross to the hop's origin).
    ///
    /// The initializer of 1.6.0, kept as it was (a new defaulted parameter would change the
    /// declaration that code built against 1.6.0 calls).
    ///
    /// - Parameters:
    ///   - urlRequest: the request to send, headers and method included.
    ///   - body: where its body comes from.
    ///   - downloadDestination: where a download's file goes; `nil` keeps the body in memory.
    ///   - progress: told the bytes moved so far and the total, when known.
    ///   - isIdempotent: whether the request may be sent twice; `nil` derives it from the
    ///     method, as the other initializer does.
    public init(
        urlRequest: URLRequest,
        body: Body = .inline,
        downloadDestination: DownloadDestination? = nil,
        progress: (@Sendable (_ completedBytes: Int64, _ totalBytes: Int64?) -> Void)? = nil,
        isIdempotent: Bool? = nil
    ) {
        self.init(
            urlRequest: urlRequest, body: body, downloadDestination: downloadDestination, progress: progress,
            isIdempotent: isIdempotent, redirectSigner: nil)
    }

    /// Whether `method` is idempotent by RFC 9110 §9.2.2; `nil` counts as `GET`, as it does
    /// for `URLRequest`.
    static func isIdempotent(method: String?) -> Bool {
        HTTPMethod(rawValue: method ?? "GET").isIdempotent
    }
}
