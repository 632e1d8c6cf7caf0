import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that hands every request to a closure: the test sees exactly what the
/// provider passed down (the prepared body, the progress callback, the download destination)
/// and answers as it likes.
///
/// ```swift
/// let transport = ClosureTransport { request in
///     #expect(request.isIdempotent == false)
///     return Response(statusCode: 201, data: Data(), request: request.urlRequest)
/// }
/// let provider = Provider<MyAPI>(transport: transport)
/// ```
///
/// For answers chosen by route, counted and checked, use ``ScriptedTransport``; the presets
/// (``successful(statusCode:data:)``, ``failing(with:)``) cover the common one-line cases.
public struct ClosureTransport: HTTPTransport {
    /// What the transport does with each request.
    public typealias Handler = @Sendable (TransportRequest) async throws -> Response

    private let handler: Handler

    /// Creates a transport that answers every request with `handler`.
    public init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    /// Calls the handler with `request`.
    public func send(_ request: TransportRequest) async throws -> Response {
        try await handler(request)
    }
}

extension ClosureTransport {
    /// Answers every request with `statusCode` (200 by default) and `data`.
    public static func successful(statusCode: Int = 200, data: Data = Data()) -> ClosureTransport {
        ClosureTransport { request in
            Response(statusCode: statusCode, data: data, request: request.urlRequest)
        }
    }

    /// Fails every request with `error`, as a transport does when the network is down.
    public static func failing(with error: any Error = URLError(.notConnectedToInternet)) -> ClosureTransport {
        ClosureTransport { _ in throw error }
    }
}
