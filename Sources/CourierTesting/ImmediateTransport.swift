import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers every request at once with the same status code and body,
/// without touching the network. Useful for measuring or testing the pipeline itself.
///
/// ```swift
/// let provider = Provider<MyAPI>(transport: ImmediateTransport(statusCode: 200, data: body))
/// ```
public struct ImmediateTransport: HTTPTransport {
    /// The status code of every answer.
    public let statusCode: Int
    /// The body of every answer.
    public let data: Data
    private let httpResponse: HTTPURLResponse?

    /// Creates a transport that answers `statusCode` with `data` and `headers`.
    public init(statusCode: Int = 200, data: Data = Data(), headers: [String: String]? = nil) {
        self.statusCode = statusCode
        self.data = data
        self.httpResponse = HTTPURLResponse(
            url: URL(fileURLWithPath: "/"), statusCode: statusCode, httpVersion: "HTTP/1.1",
            headerFields: headers)
    }

    /// Answers `request` with the configured response.
    public func send(_ request: TransportRequest) async throws -> Response {
        try Task.checkCancellation()
        return Response(statusCode: statusCode, data: data, request: request.urlRequest, response: httpResponse)
    }
}
