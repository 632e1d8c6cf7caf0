// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import CourierTestServer
import Foundation
import Testing

@testable import CourierCurl

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTPS with HTTP/2 (nginx, TLS 1.3, in front of the test server): negotiated by ALPN,
/// concurrent requests multiplexed on one connection, the fall-back to HTTP/1.1, and the
/// transport's guarantees (pinning, redirects, time-outs, cancellation, transfers) over it.
@Suite("CurlTransport over HTTPS with HTTP/2", .timeLimit(.minutes(20)))
struct CurlHTTP2Tests {
    /// 32 requests at once, `count` in all, through `transport`; returns the responses.
    static func burst(_ transport: CurlTransport, _ url: URL, count: Int, width: Int = 32) async throws -> [Response] {
        try await withThrowingTaskGroup(of: Response.self) { group in
            var responses: [Response] = []
            for index in 0..<count {
                if index >= width, let response = try await group.next() { responses.append(response) }
                group.addTask { try await transport.send(url) }
            }
            for try await response in group { responses.append(response) }
            return responses
        }
    }

    @Test("32 requests sent at once to a new host wait for ALPN and share one HTTP/2 connection")
    func multiplexed() async throws {
        let server = try await SharedCurlServer.get()
        let front = try await HTTP2Front.start(for: server)
        defer { front.stop() }
        let transport = front.transport()
        let responses = try await Self.burst(transport, front.url("delay/200"), count: 32)
        #expect(responses.count == 32)
        #expect(responses.allSatisfy { $0.statusCode == 200 && $0.frontProtocol == "HTTP/2.0" })
        #expect(transport.loop.statistics.connectionsOpened == 1, "\(transport.loop.statistics)")
    }

    @Test("2,000 requests with 32 in flight on pooled handles all succeed on one connection")
    func pooledHandlesOverHTTP2() async throws {
        // The handles that come back from multiplexed transfers are configured again for the
        // next requests: libcurl 7.88 refused CURLOPT_BUFFERSIZE on them, and nearly every
        // request failed before it was sent.
        let server = try await SharedCurlServer.get()
        let front = try await HTTP2Front.start(for: server)
        defer { front.stop() }
        let transport = front.transport()
        let responses = try await Self.burst(transport, front.url("echo"), count: 2000)
        #expect(responses.count == 2000)
        #expect(responses.allSatisfy { $0.statusCode == 200 && $0.frontProtocol == "HTTP/2.0" })
        let statistics = transport.loop.statistics
        #expect(statistics.connectionsOpened == 1, "\(statistics)")
        #expect(statistics.easyHandlesCreated <= 40, "\(statistics)")
        #expect(statistics.hopsStarted == 2000)
    }

    @Test("a server that offers only HTTP/1.1 gets HTTP/1.1, one connection per request in flight")
    func fallback() async throws {
        let server = try await SharedCurlServer.get()
        let front = try await HTTP2Front.start(for: server, http2: false)
        defer { front.stop() }
        let transport = front.transport()
        let responses = try await Self.burst(transport, front.url("delay/100"), count: 8, width: 8)
        #expect(responses.allSatisfy { $0.statusCode == 200 && $0.frontProtocol == "HTTP/1.1" })
        #expect(transport.loop.statistics.connectionsOpened <= 8)
    }

    @Test("a pinned key that matches is accepted over HTTP/2; one that does not is refused before anything is sent")
    func pinning() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let front = try await HTTP2Front.start(for: server)
        defer { front.stop() }
        let pinned = try await front.transport { $0.pinnedPublicKey = front.pin }.send(front.url("echo"))
        #expect(pinned.statusCode == 200 && pinned.frontProtocol == "HTTP/2.0")
        let before = try await server.counters().requestsTotal
        await #expect {
            try await front.transport { $0.pinnedPublicKey = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" }
                .send(front.url("echo"))
        } throws: { urlErrorCode($0) == .serverCertificateUntrusted }
        #expect(try await server.counters().requestsTotal == before)
    }

    @Test("redirects over HTTP/2: credentials dropped across origins, kept on the same one, a 307 sends its body again")
    func redirects() async throws {
        let server = try await SharedCurlServer.get()
        let front = try await HTTP2Front.start(for: server)
        defer { front.stop() }
        let transport = front.transport()
        func redirect(_ status: Int, to target: URL) -> URL {
            var components = URLComponents(url: front.url("redirect"), resolvingAgainstBaseURL: false)!
            components.queryItems = [
                URLQueryItem(name: "to", value: target.absoluteString),
                URLQueryItem(name: "status", value: "\(status)"),
            ]
            return components.url!
        }
        let secret = ["Authorization": "Bearer h2-secret", "X-Kept": "1"]
        let crossOrigin = try await transport.send(
            redirect(302, to: front.url("echo", host: "localhost")), headers: secret)
        #expect(crossOrigin.frontProtocol == "HTTP/2.0")
        #expect(try crossOrigin.echo().header("Authorization") == nil)
        #expect(try crossOrigin.echo().header("X-Kept") == "1")
        let sameOrigin = try await transport.send(redirect(302, to: front.url("echo")), headers: secret)
        #expect(try sameOrigin.echo().header("Authorization") == "Bearer h2-secret")
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        let replayed = try await transport.send(
            redirect(307, to: front.url("echo")), method: "POST", headers: ["Content-Type": "application/octet-stream"],
            body: body)
        #expect(try replayed.echo().method == "POST")
        #expect(try replayed.echo().bodyLength == body.count)
    }

    @Test("a stream whose answer does not come times out, promptly, and its connection keeps serving the others")
    func timeouts() async throws {
        let server = try await SharedCurlServer.get()
        let front = try await HTTP2Front.start(for: server)
        defer { front.stop() }
        let transport = front.transport { $0.timeoutIntervalForRequest = 1 }
        _ = try await transport.send(front.url("echo"))
        let slow = Task { try await transport.send(front.url("delay/60000")) }
        let quick = try await Self.burst(transport, front.url("echo"), count: 20, width: 4)
        // The answer comes after 60 s: only the 1 s time-out can end the stream in timedOut
        // first (without it, it would succeed). No clock: a busy machine slows both.
        await #expect { try await slow.value } throws: { urlErrorCode($0) == .timedOut }
        #expect(quick.allSatisfy { $0.statusCode == 200 })
        #expect(try await transport.send(front.url("echo")).frontProtocol == "HTTP/2.0")
        #expect(transport.loop.statistics.connectionsOpened == 1, "\(transport.loop.statistics)")
    }

    @Test("cancelling one stream cancels it alone: the other requests on the connection complete")
    func cancellation() async throws {
        let server = try await SharedCurlServer.get()
        let front = try await HTTP2Front.start(for: server)
        defer { front.stop() }
        let transport = front.transport()
        _ = try await transport.send(front.url("echo"))
        let cancelled = Task { try await transport.send(front.url("delay/60000")) }
        let others = Task { try await Self.burst(transport, front.url("delay/50"), count: 16, width: 16) }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        let responses = try await others.value
        #expect(responses.count == 16 && responses.allSatisfy { $0.statusCode == 200 })
        #expect(transport.loop.statistics.connectionsOpened == 1, "\(transport.loop.statistics)")
    }

    @Test("a file upload and a download to a file arrive intact over HTTP/2")
    func transfers() async throws {
        let server = try await SharedCurlServer.get()
        let front = try await HTTP2Front.start(for: server)
        defer { front.stop() }
        let transport = front.transport()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-h2-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let upload = directory.appendingPathComponent("upload.bin")
        let bytes = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: upload)
        var request = URLRequest(url: front.url("echo"))
        request.httpMethod = "PUT"
        let uploaded = try await transport.send(TransportRequest(urlRequest: request, body: .file(upload)))
        let answer = try JSONSerialization.jsonObject(with: uploaded.data) as? [String: Any]
        #expect(uploaded.frontProtocol == "HTTP/2.0")
        #expect((answer?["body_base64"] as? String).flatMap { Data(base64Encoded: $0) } == bytes)

        let target = directory.appendingPathComponent("download.bin")
        let downloaded = try await transport.send(
            TransportRequest(
                urlRequest: URLRequest(url: front.url("bytes/300000")),
                downloadDestination: { _, _ in (target, []) }))
        #expect(downloaded.fileURL == target)
        #expect(try Data(contentsOf: target) == Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
    }
}

#endif
