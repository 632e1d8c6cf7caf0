import Courier
import Foundation
import Testing

#if CurlTransport
    import CourierCurl
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transports the transport-level integration tests run against, as a test parameter:
/// `@Test(arguments: TransportUnderTest.allCases) func name(_ kind: TransportUnderTest)`.
///
/// ``URLSessionTransport`` always; `CurlTransport` too when the package is built with the
/// `CurlTransport` trait (`swift test --traits CurlTransport`, which needs libcurl's headers).
enum TransportUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    #if CurlTransport
        case curl
    #endif

    /// A new transport of this kind with its default configuration.
    func make() -> any HTTPTransport {
        switch self {
        case .urlSession: URLSessionTransport()
        #if CurlTransport
            case .curl: CurlTransport()
        #endif
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
        #if CurlTransport
            case .curl:
                var configuration = CurlTransport.Configuration()
                configuration.timeoutIntervalForRequest = seconds
                configuration.timeoutIntervalForResource = seconds
                return CurlTransport(configuration: configuration)
        #endif
        }
    }

    /// A new transport of this kind that keeps at most `bytes` of a response body in memory.
    func make(maximumResponseBodySize bytes: Int) -> any HTTPTransport {
        switch self {
        case .urlSession:
            URLSessionTransport(
                configuration: URLSessionTransport.defaultConfiguration(), maximumResponseBodySize: bytes)
        #if CurlTransport
            case .curl:
                CurlTransport(configuration: Self.curlConfiguration { $0.maximumResponseBodySize = bytes })
        #endif
        }
    }

    var testDescription: String { rawValue }

    #if CurlTransport
        /// A default `CurlTransport.Configuration`, changed by `change`.
        static func curlConfiguration(_ change: (inout CurlTransport.Configuration) -> Void)
            -> CurlTransport.Configuration
        {
            var configuration = CurlTransport.Configuration()
            change(&configuration)
            return configuration
        }
    #endif
}
