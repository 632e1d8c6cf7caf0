import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a stubbed request answers with.
public enum EndpointSampleResponse: Sendable {
    /// A response with this status code and body.
    case networkResponse(Int, Data)
    /// This exact HTTP response (headers included) and body.
    case response(HTTPURLResponse, Data)
    /// A failure, as if the network had failed with this error.
    case networkError(any Error)
}
