import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLSessionTransport.maximumResponseBodySize")
struct URLSessionTransportBoundTests {
    @Test("every initialiser bounds in-memory bodies to 32 MiB unless told otherwise")
    func defaults() {
        #expect(URLSessionTransport.defaultMaximumResponseBodySize == 32 * 1024 * 1024)
        #expect(URLSessionTransport().maximumResponseBodySize == 32 * 1024 * 1024)
        let configuration = URLSessionTransport.defaultConfiguration()
        #expect(URLSessionTransport(configuration: configuration).maximumResponseBodySize == 32 * 1024 * 1024)
    }

    @Test("a chosen bound is kept; a negative one counts as zero")
    func chosen() {
        let configuration = URLSessionTransport.defaultConfiguration()
        #expect(
            URLSessionTransport(configuration: configuration, maximumResponseBodySize: 1024).maximumResponseBodySize
                == 1024)
        #expect(
            URLSessionTransport(configuration: configuration, maximumResponseBodySize: -5).maximumResponseBodySize == 0)
    }
}
