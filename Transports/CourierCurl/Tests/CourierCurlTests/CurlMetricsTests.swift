// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import CourierCurl
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every response carries its attempt's `TransferMetrics`, read from libcurl's timers:
/// phases, time to the first byte and total in order, bytes as they went over the wire,
/// whether the connection was reused, the protocol, and the redirects followed on the way.
@Suite("CurlTransport's transfer metrics", .timeLimit(.minutes(20)))
struct CurlMetricsTests {
    let server: TestServer

    init() async throws {
        server = try await SharedCurlServer.get()
    }

    /// Checks what holds for every attempt: each duration is known and not negative, and they
    /// come in order (the phases before the first byte, the first byte before the end).
    static func expectOrdered(_ metrics: TransferMetrics?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let metrics else {
            Issue.record("no metrics", sourceLocation: sourceLocation)
            return
        }
        guard let lookup = metrics.domainLookup, let connect = metrics.connect,
            let firstByte = metrics.timeToFirstByte, let total = metrics.total
        else {
            Issue.record("a timing is missing: \(metrics)", sourceLocation: sourceLocation)
            return
        }
        let handshake = metrics.secureConnection ?? 0
        #expect(lookup >= 0 && connect >= 0 && handshake >= 0, "\(metrics)", sourceLocation: sourceLocation)
        #expect(lookup + connect + handshake <= firstByte + 1e-6, "\(metrics)", sourceLocation: sourceLocation)
        #expect(firstByte <= total, "\(metrics)", sourceLocation: sourceLocation)
        #expect(total < 60, "\(metrics)", sourceLocation: sourceLocation)
    }

    @Test("over HTTP/1.1 the first request opens a connection and the second reuses it; bytes match what moved")
    func keptAlive() async throws {
        let transport = CurlTransport()
        let first = try await transport.send(server.url("bytes/3000"))
        let second = try await transport.send(server.url("bytes/3000"))
        for response in [first, second] {
            Self.expectOrdered(response.metrics)
            #expect(response.metrics?.protocolVersion == "1.1")
            #expect(response.metrics?.bytesReceived == 3000)
            #expect(response.metrics?.bytesSent == 0)
            #expect(response.metrics?.redirectCount == 0)
            // Plain http: no TLS handshake to time.
            #expect(response.metrics?.secureConnection == nil)
        }
        #expect(first.metrics?.reusedConnection == false)
        #expect(second.metrics?.reusedConnection == true)
        // A reused connection has no look-up or connect of its own.
        #expect(second.metrics?.domainLookup == 0)
        #expect(second.metrics?.connect == 0)
    }

    @Test("an upload counts the body sent, and the answer's body received")
    func upload() async throws {
        let body = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let response = try await CurlTransport().send(
            server.url("echo"), method: "POST", headers: ["Content-Type": "application/octet-stream"], body: body)
        Self.expectOrdered(response.metrics)
        #expect(response.metrics?.bytesSent == Int64(body.count))
        #expect(response.metrics?.bytesReceived == Int64(response.data.count))
        #expect(try response.echo().bodyLength == body.count)
    }

    @Test("a redirect the transport follows is part of the attempt: counted, its time and bytes included")
    func followedRedirect() async throws {
        let transport = CurlTransport()
        var components = URLComponents(url: server.url("redirect"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "to", value: server.url("bytes/500").absoluteString),
            URLQueryItem(name: "status", value: "302"),
        ]
        let direct = try await transport.send(server.url("bytes/500"))
        let redirected = try await transport.send(components.url!)
        #expect(redirected.data.count == 500)
        Self.expectOrdered(redirected.metrics)
        #expect(redirected.metrics?.redirectCount == 1)
        #expect(direct.metrics?.redirectCount == 0)
        // The 302's body is empty: what was received is the answer's.
        #expect(redirected.metrics?.bytesReceived == 500)
        #expect(redirected.metrics?.reusedConnection == true)
    }

    @Test("a 3xx handed back (its Location is not http) carries its metrics too")
    func redirectHandedBack() async throws {
        var components = URLComponents(url: server.url("redirect"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "to", value: "ftp://127.0.0.1/file"), URLQueryItem(name: "status", value: "301"),
        ]
        let response = try await CurlTransport().send(components.url!)
        #expect(response.statusCode == 301)
        Self.expectOrdered(response.metrics)
        #expect(response.metrics?.redirectCount == 0)
        #expect(response.metrics?.reusedConnection == false)
    }

    @Test("a download to a file carries the metrics of its transfer")
    func download() async throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("courier-metrics-\(UUID())")
        defer { try? FileManager.default.removeItem(at: target) }
        let response = try await CurlTransport().send(
            TransportRequest(
                urlRequest: URLRequest(url: server.url("bytes/20000")), downloadDestination: { _, _ in (target, []) }))
        #expect(response.fileURL == target)
        Self.expectOrdered(response.metrics)
        #expect(response.metrics?.bytesReceived == 20000)
    }

    @Test("a gzip body counts the bytes that came over the wire, before decoding")
    func codedBody() async throws {
        let response = try await CurlTransport().send(server.url("hostile/gzip-bomb/metrics?size=100000"))
        #expect(response.data.count == 100_000)
        let received = try #require(response.metrics?.bytesReceived)
        #expect(received > 0 && received < 10_000, "\(received) bytes received for 100,000 decoded")
    }

    @Test("over HTTPS with HTTP/2: protocol 2, a TLS handshake on the first request, none on the next")
    func http2() async throws {
        let front = try await HTTP2Front.start(for: server)
        defer { front.stop() }
        let transport = front.transport()
        let first = try await transport.send(front.url("bytes/1000"))
        let second = try await transport.send(front.url("bytes/1000"))
        for response in [first, second] {
            #expect(response.frontProtocol == "HTTP/2.0")
            Self.expectOrdered(response.metrics)
            #expect(response.metrics?.protocolVersion == "2")
            #expect(response.metrics?.bytesReceived == 1000)
        }
        #expect(first.metrics?.reusedConnection == false)
        #expect((first.metrics?.secureConnection ?? 0) > 0, "\(String(describing: first.metrics))")
        #expect(second.metrics?.reusedConnection == true)
        #expect(second.metrics?.secureConnection == 0)
    }

    @Test("the metrics' one-line summary names what a log reader needs")
    func summary() async throws {
        let response = try await CurlTransport().send(server.url("bytes/2048"))
        let summary = try #require(response.metrics?.summary)
        #expect(summary.hasPrefix("total "))
        #expect(summary.contains("received 2.0 KB"))
        #expect(summary.contains("http/1.1"))
        #expect(summary.contains("new connection"))
    }
}

#endif
