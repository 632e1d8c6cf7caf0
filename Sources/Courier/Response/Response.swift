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

    private final class Storage: Sendable {
        let statusCode: Int
        let data: Data
        let request: URLRequest?
        let response: HTTPURLResponse?
        let fileURL: URL?
        let metrics: TransferMetrics?

        init(
            statusCode: Int, data: Data, request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?,
            metrics: TransferMetrics?
        ) {
            self.statusCode = statusCode
            self.data = data
            self.request = request
            self.response = response
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
            statusCode: statusCode, data: data, request: request, response: response, fileURL: fileURL,
            metrics: metrics)
    }

    /// This response with `metrics`, for a transport that measures after it has built the
    /// response (or a step that adds what it measured).
    public func withMetrics(_ metrics: TransferMetrics?) -> Response {
        var copy = Response(
            statusCode: statusCode, data: data, request: request, response: response, fileURL: fileURL,
            metrics: metrics)
        copy.rejection = rejection
        return copy
    }

    /// Status code and body size; never the body itself, which may hold a token.
    public var debugDescription: String {
        "Status Code: \(statusCode), Data Length: \(data.count)"
    }

    /// Two responses are equal when their status code, body and HTTP response are.
    public static func == (lhs: Response, rhs: Response) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.data == rhs.data
            && lhs.response == rhs.response && lhs.fileURL == rhs.fileURL
    }
}
