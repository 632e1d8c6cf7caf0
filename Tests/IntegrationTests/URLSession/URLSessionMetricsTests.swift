import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `URLSessionTransport` reports of each attempt on Linux, where swift-corelibs-foundation
/// delivers no task metrics: the figures it measures itself.
@Suite("URLSessionTransport's metrics", .timeLimit(.minutes(20)))
struct URLSessionMetricsTests {
    let server: TestServer
    let provider = Provider<ServerAPI>(transport: URLSessionTransport())

    init() async throws {
        server = try await SharedServer.get()
    }

    @Test("a GET: the total and the time to the answer's head, in order; the body's bytes; nothing sent")
    func get() async throws {
        let response = try await provider.request(ServerAPI(server, "bytes/4096"))
        let metrics = try #require(response.metrics)
        let total = try #require(metrics.total)
        let firstByte = try #require(metrics.timeToFirstByte)
        #expect(total > 0 && firstByte > 0 && firstByte <= total)
        #expect(metrics.bytesReceived == 4096)
        #expect(metrics.bytesReceived == Int64(response.data.count))
        #expect(metrics.bytesSent == 0)
        #expect(metrics.redirectCount == 0)
        #if canImport(FoundationNetworking)
            // corelibs tells neither: unknown, never guessed.
            #expect(metrics.reusedConnection == nil && metrics.protocolVersion == nil && metrics.domainLookup == nil)
        #endif
    }

    @Test("an upload counts the bytes sent")
    func upload() async throws {
        let body = Data(repeating: 7, count: 10_000)
        let response = try await provider.request(ServerAPI(server, "upload", method: .post, task: .requestData(body)))
        #expect(response.statusCode == 200)
        #expect(response.metrics?.bytesSent == 10_000)
    }

    @Test("a redirect the transport follows is part of the attempt")
    func redirect() async throws {
        let response = try await provider.request(ServerAPI(server, "redirect-same/echo"))
        #expect(response.statusCode == 200)
        #expect(response.metrics?.redirectCount == 1)
    }

    @Test("an error that carries a response carries its metrics")
    func statusError() async throws {
        var target = ServerAPI(server, "status/404")
        target.validationType = .successCodes
        let result = await outcome(provider, target)
        guard case .failure(.statusCode(let response)) = result else {
            Issue.record("expected a status code error, got \(result)")
            return
        }
        #expect(response.metrics?.total != nil)
    }
}
