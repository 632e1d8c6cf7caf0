import Courier
import CourierCurl
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transports the shared transport-level integration tests (the root package's
/// `Tests/IntegrationTests/Transport/`, linked here) run against: this package's own copy
/// of the root's type, which adds ``CurlTransport``.
enum TransportUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case curl

    /// A new transport of this kind with its default configuration.
    func make() -> any HTTPTransport {
        switch self {
        case .urlSession: URLSessionTransport()
        case .curl: CurlTransport()
        }
    }

    /// A new transport of this kind whose request and resource time-outs are `seconds`.
    func make(timeout seconds: TimeInterval) -> any HTTPTransport {
        switch self {
        case .urlSession:
            let configuration = URLSessionTransport.defaultConfiguration()
            configuration.timeoutIntervalForRequest = seconds
            configuration.timeoutIntervalForResource = seconds
            return URLSessionTransport(configuration: configuration)
        case .curl:
            var configuration = CurlTransport.Configuration()
            configuration.timeoutIntervalForRequest = seconds
            configuration.timeoutIntervalForResource = seconds
            return CurlTransport(configuration: configuration)
        }
    }

    /// A new transport of this kind that waits at most `request` seconds for the next bytes
    /// and `resource` seconds for the whole request.
    func make(requestTimeout request: TimeInterval, resourceTimeout resource: TimeInterval) -> any HTTPTransport {
        switch self {
        case .urlSession:
            let configuration = URLSessionTransport.defaultConfiguration()
            configuration.timeoutIntervalForRequest = request
            configuration.timeoutIntervalForResource = resource
            return URLSessionTransport(configuration: configuration)
        case .curl:
            var configuration = CurlTransport.Configuration()
            configuration.timeoutIntervalForRequest = request
            configuration.timeoutIntervalForResource = resource
            return CurlTransport(configuration: configuration)
        }
    }

    /// A new transport of this kind whose in-memory response bodies may be at most `bytes` long.
    func make(maximumResponseBodySize bytes: Int) -> any HTTPTransport {
        switch self {
        case .urlSession:
            return URLSessionTransport(
                configuration: URLSessionTransport.defaultConfiguration(), maximumResponseBodySize: bytes)
        case .curl:
            var configuration = CurlTransport.Configuration()
            configuration.maximumResponseBodySize = bytes
            return CurlTransport(configuration: configuration)
        }
    }

    var testDescription: String { rawValue }
}
