import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that hands every request to a closure, so a test can see what the provider
/// passed down and answer as it likes.
struct ClosureTransport: HTTPTransport {
    let handler: @Sendable (TransportRequest) async throws -> Response

    func send(_ request: TransportRequest) async throws -> Response {
        try await handler(request)
    }
}
