import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transports the transport-level integration tests run against, as a test parameter:
/// `@Test(arguments: TransportUnderTest.allCases) func name(_ kind: TransportUnderTest)`.
///
/// The root package tests ``URLSessionTransport`` only, since it must build with the
/// toolchain alone. A package that ships another transport (such as the libcurl one in
/// `Transports/`) compiles the shared transport tests with its own copy of this type, which
/// lists its transport too.
enum TransportUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession

    /// A new transport of this kind with its default configuration.
    func make() -> any HTTPTransport {
        switch self {
        case .urlSession: URLSessionTransport()
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
        }
    }

    /// A new transport of this kind that keeps at most `bytes` of a response body in memory.
    func make(maximumResponseBodySize bytes: Int) -> any HTTPTransport {
        switch self {
        case .urlSession:
            URLSessionTransport(
                configuration: URLSessionTransport.defaultConfiguration(), maximumResponseBodySize: bytes)
        }
    }

    var testDescription: String { rawValue }
}
