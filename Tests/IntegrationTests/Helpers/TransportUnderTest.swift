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
/// When the environment puts an HTTPS/HTTP/2 front before the test server (`.ci/run` does, in
/// a second run: see `TestServerFront`), only `CurlTransport`, which trusts the front's
/// certificate: `URLSession` on Linux cannot be given a certificate authority.
enum TransportUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    #if CurlTransport
        case curl
    #endif

    /// The transport a test uses for its own bookkeeping requests (reading a route's counts):
    /// `URLSessionTransport`, or `CurlTransport` when the server has an HTTPS front that only it
    /// trusts.
    static var bookkeeping: TransportUnderTest { allCases[0] }

    static var allCases: [TransportUnderTest] {
        #if CurlTransport
            if frontCertificate != nil || selected == "curl" { return [.curl] }
            if selected == "urlSession" { return [.urlSession] }
            return [.urlSession, .curl]
        #else
            [.urlSession]
        #endif
    }

    #if CurlTransport
        /// `COURIER_TEST_TRANSPORTS=curl` or `=urlSession`: one half of the shared suites.
        /// `.ci/run` builds its sanitized and trait runs with `CurlTransport` on and asks each
        /// run for the half that no other run covers, rather than running a half twice.
        static let selected = ProcessInfo.processInfo.environment["COURIER_TEST_TRANSPORTS"]
    #endif

    /// A new transport of this kind with its default configuration.
    func make() -> any HTTPTransport {
        switch self {
        case .urlSession: URLSessionTransport()
        #if CurlTransport
            case .curl: CurlTransport(configuration: Self.curlConfiguration { _ in })
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
                return CurlTransport(
                    configuration: Self.curlConfiguration {
                        $0.timeoutIntervalForRequest = seconds
                        $0.timeoutIntervalForResource = seconds
                    })
        #endif
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
        #if CurlTransport
            case .curl:
                return CurlTransport(
                    configuration: Self.curlConfiguration {
                        $0.timeoutIntervalForRequest = request
                        $0.timeoutIntervalForResource = resource
                    })
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
        /// A default `CurlTransport.Configuration` (trusting the HTTPS front's certificate,
        /// when there is one), changed by `change`.
        static func curlConfiguration(_ change: (inout CurlTransport.Configuration) -> Void)
            -> CurlTransport.Configuration
        {
            var configuration = CurlTransport.Configuration()
            configuration.certificateAuthorities = frontCertificate
            change(&configuration)
            return configuration
        }

        /// The certificate of the test server's HTTPS front, when the environment sets one up.
        static let frontCertificate: URL? = ProcessInfo.processInfo.environment["COURIER_TEST_SERVER_FRONT_CERT"]
            .flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
    #endif
}
