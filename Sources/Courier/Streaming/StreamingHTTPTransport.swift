import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that can hand a response over as it arrives: the head first, then the body as a
/// stream of chunks with back-pressure.
///
/// ```swift
/// let streamed = try await transport.stream(TransportRequest(urlRequest: request), options: StreamOptions())
/// print(streamed.statusCode)
/// for try await chunk in streamed.body { consume(chunk) }
/// ```
public protocol StreamingHTTPTransport: HTTPTransport {
    /// Sends `request` and returns as soon as the response's head has arrived, whatever its
    /// status code; the body follows in ``StreamedResponse/body``.
    ///
    /// - Throws: what stopped the request before its head arrived (the network error, or
    ///   `CancellationError` when the calling task was cancelled).
    func stream(_ request: TransportRequest, options: StreamOptions) async throws -> StreamedResponse
}

/// A response whose head has arrived and whose body is still arriving.
public struct StreamedResponse: Sendable {
    /// The HTTP status code.
    public let statusCode: Int
    /// The request as it was sent.
    public let request: URLRequest
    /// The response's head: status and headers.
    public let response: HTTPURLResponse
    /// The body, chunk by chunk.
    public let body: ResponseBodyStream

    /// Makes a streamed response from its head and its body.
    public init(request: URLRequest, response: HTTPURLResponse, body: ResponseBodyStream) {
        self.statusCode = response.statusCode
        self.request = request
        self.response = response
        self.body = body
    }
}
