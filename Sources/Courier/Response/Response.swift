import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the server answered: status code, body, and the request as it was sent.
public struct Response: Sendable, Equatable, CustomDebugStringConvertible {
    /// The HTTP status code.
    public var statusCode: Int { storage.statusCode }
    /// The body. Empty for a download, whose file is at its destination (``fileURL``).
    public var data: Data { storage.data }
    /// The request as it was sent, after every plugin's `prepare`.
    public var request: URLRequest? { storage.request }
    /// The HTTP response, with its headers.
    public var response: HTTPURLResponse? { storage.response }
    /// Where a download's file was moved to; `nil` for other requests.
    public var fileURL: URL? { storage.fileURL }
    /// What the attempt that got this answer cost on the wire — timings, bytes, connection
    /// reuse, protocol — as far as the transport measured it; `nil` when it measured nothing
    /// (a stub). Not part of equality.
    public var metrics: TransferMetrics? { storage.metrics }
    /// Why this response was rejected, for error descriptions; not part of equality.
    var rejection = Rejection()

    /// The fields, in one immutable box: a response passes through every plugin's
    /// `didReceive` and `process` and up the pipeline, and copying it then costs one
    /// reference count instead of one per field.
    private let storage: Storage

    private init(storage: Storage) {
        self.storage = storage
    }

    private final class Storage: Sendable {
        let statusCode: Int
        let data: Data
        let request: URLRequest?
        let head: Head
        let fileURL: URL?
        let metrics: TransferMetrics?

        /// The HTTP response, or how to build it the first time it is read.
        enum Head: Sendable {
            case built(HTTPURLResponse?)
            case deferred(DeferredHTTPResponse)
        }

        var response: HTTPURLResponse? {
            switch head {
            case .built(let response): response
            case .deferred(let deferred): deferred.value
            }
        }

        init(
            statusCode: Int, data: Data, request: URLRequest?, head: Head, fileURL: URL?,
            metrics: TransferMetrics?
        ) {
            self.statusCode = statusCode
            self.data = data
            self.request = request
            self.head = head
            self.fileURL = fileURL
            self.metrics = metrics
        }
    }

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - statusCode: the HTTP status code.
    ///   - data: the body (empty for a download).
    ///   - request: the request as it was sent.
    ///   - response: the HTTP response, with its headers.
    ///   - fileURL: where a download's file is.
    ///   - metrics: what the attempt cost on the wire, from a transport that measures it (see
    ///     ``TransferMetrics``).
    public init(
        statusCode: Int, data: Data, request: URLRequest? = nil,
        response: HTTPURLResponse? = nil, fileURL: URL? = nil, metrics: TransferMetrics? = nil
    ) {
        storage = Storage(
            statusCode: statusCode, data: data, request: request, head: .built(response), fileURL: fileURL,
            metrics: metrics)
    }

    /// A response whose HTTP response is built only when ``response`` is first read: for a
    /// transport of this package whose callers mostly read the status and the body alone
    /// (see ``DeferredHTTPResponse``).
    package init(
        statusCode: Int, data: Data, request: URLRequest?, deferredResponse: DeferredHTTPResponse,
        fileURL: URL? = nil, metrics: TransferMetrics? = nil
    ) {
        storage = Storage(
            statusCode: statusCode, data: data, request: request, head: .deferred(deferredResponse),
            fileURL: fileURL, metrics: metrics)
    }

    /// This response with `metrics`, for a transport that measures after it has built the
    /// response (or a step that adds what it measured).
    public func withMetrics(_ metrics: TransferMetrics?) -> Response {
        // The HTTP response is carried over as it is: a deferred one stays unbuilt.
        var copy = Response(
            storage: Storage(
                statusCode: statusCode, data: data, request: request, head: storage.head, fileURL: fileURL,
                metrics: metrics))
        copy.rejection = rejection
        return copy
    }

    /// Same as ``description``: status code and body size; never the body itself, which may
    /// hold a token.
    public var debugDescription: String { description }

    /// Two responses are equal when their status code, body and HTTP response are.
    public static func == (lhs: Response, rhs: Response) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.data == rhs.data
            && lhs.response == rhs.response && lhs.fileURL == rhs.fileURL
    }
}
