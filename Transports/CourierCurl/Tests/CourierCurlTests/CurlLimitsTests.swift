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

/// Bounds and time-outs from the configuration, and requests refused before anything is sent.
@Suite("CurlTransport's limits and refusals", .timeLimit(.minutes(20)))
struct CurlLimitsTests {
    let server: TestServer

    init() async throws {
        server = try await SharedCurlServer.get()
    }

    static func transport(_ change: (inout CurlTransport.Configuration) -> Void) -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        change(&configuration)
        return CurlTransport(configuration: configuration)
    }

    @Test(
        "a body over maximumResponseBodySize fails with dataLengthExceedsMaximum naming the URL; one at the bound arrives"
    )
    func responseBound() async throws {
        let transport = Self.transport { $0.maximumResponseBodySize = 1000 }
        #expect(transport.maximumResponseBodySize == 1000)
        let url = server.url("bytes/1001")
        await #expect {
            try await transport.send(url)
        } throws: { error in
            let urlError = error as? URLError
            return urlError?.code == .dataLengthExceedsMaximum && urlError?.failingURL == url
        }
        #expect(try await transport.send(server.url("bytes/1000")).data.count == 1000)
        #expect(CurlTransport().maximumResponseBodySize == 32 * 1024 * 1024)
    }

    @Test("a download goes to its file whatever the in-memory bound")
    func downloadNotBounded() async throws {
        let transport = Self.transport { $0.maximumResponseBodySize = 1000 }
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("courier-curl-\(UUID()).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let response = try await transport.send(
            TransportRequest(
                urlRequest: URLRequest(url: server.url("bytes/200000")),
                downloadDestination: { _, _ in (target, []) }))
        #expect(response.fileURL == target)
        #expect(try Data(contentsOf: target).count == 200_000)
    }

    @Test("timeoutIntervalForRequest ends a request whose answer does not come, promptly")
    func idleTimeout() async throws {
        let transport = Self.transport { $0.timeoutIntervalForRequest = 0.5 }
        // The answer comes after 60 s: only the 0.5 s time-out can end the request in timedOut
        // first (without it, the request would succeed). No clock: a busy machine slows both.
        await #expect {
            try await transport.send(server.url("delay/60000"))
        } throws: { urlErrorCode($0) == .timedOut }
    }

    @Test("timeoutIntervalForResource ends a transfer that keeps trickling, promptly")
    func resourceTimeout() async throws {
        let transport = Self.transport { $0.timeoutIntervalForResource = 1 }
        // The body trickles for 60 s, each chunk well inside the request time-out: only the 1 s
        // resource time-out can end it in timedOut before it is complete.
        await #expect {
            try await transport.send(server.url("slow-bytes/1000?chunks=600&delay_ms=100"))
        } throws: { urlErrorCode($0) == .timedOut }
    }

    @Test("more than 32 interim (1xx) heads end the request with badServerResponse, whatever the time-outs")
    func endlessInterimHeads() async throws {
        // The answer would come after a minute of `100 Continue` heads, 20 ms apart.
        let transport = Self.transport { $0.timeoutIntervalForResource = 7 * 24 * 3600 }
        let path = "/hostile/continue-forever/curl-interim-\(UUID().uuidString)"
        var components = URLComponents(url: server.url(String(path.dropFirst())), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "seconds", value: "60"), URLQueryItem(name: "interval_ms", value: "20"),
            URLQueryItem(name: "final", value: "1"),
        ]
        await #expect {
            try await transport.send(components.url!)
        } throws: { error in
            let urlError = error as? URLError
            return urlError?.code == .badServerResponse && urlError?.failingURL?.path == path
                && urlError?.localizedDescription.contains("more than 32 interim (1xx) responses") == true
        }
        // A few interim heads are no trouble.
        components.path = "/hostile/continue-forever/curl-interim-once-\(UUID().uuidString)"
        components.queryItems = [
            URLQueryItem(name: "seconds", value: "0"), URLQueryItem(name: "interval_ms", value: "1"),
            URLQueryItem(name: "final", value: "1"),
        ]
        let answer = try await transport.send(components.url!)
        #expect(answer.statusCode == 200 && answer.data == Data("ok".utf8))
    }

    @Test("absurd time-outs (negative, NaN, huge) are clamped, never a crash or an instant failure")
    func absurdTimeouts() async throws {
        for value in [-1, .nan, .infinity, 1e300] as [TimeInterval] {
            let transport = Self.transport {
                $0.timeoutIntervalForRequest = value
                $0.timeoutIntervalForResource = value
            }
            #expect(try await transport.send(server.url("echo")).statusCode == 200)
        }
    }

    @Test("a header name with a line break, a bad header name or a bad method is refused and nothing is sent")
    func refusedRequests() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let transport = CurlTransport()
        let before = try await server.counters().requestsTotal
        await #expect(throws: CurlTransportError.invalidHeaderName("X-A\r\nX-Injected")) {
            try await transport.send(server.url("echo"), headers: ["X-A\r\nX-Injected": "1"])
        }
        await #expect(throws: CurlTransportError.invalidHeaderName("Bad Name")) {
            try await transport.send(server.url("echo"), headers: ["Bad Name": "1"])
        }
        await #expect(throws: CurlTransportError.invalidMethod("GET /x HTTP/1.1\r\n")) {
            try await transport.send(server.url("echo"), method: "GET /x HTTP/1.1\r\n")
        }
        // Admin calls are not counted, so nothing at all reached the server.
        #expect(try await server.counters().requestsTotal == before)
    }

    @Test("a header value with a line break never forges another header")
    func headerValueInjection() async throws {
        let server = try await SharedCurlServer.get()
        // Foundation on Linux drops such a value from the URLRequest; elsewhere the transport
        // refuses it. Either way no second header reaches the server.
        do {
            let echo = try await CurlTransport().send(
                server.url("echo"), headers: ["X-Token": "a\r\nX-Injected: 1"]
            ).echo()
            #expect(echo.header("X-Injected") == nil)
        } catch {
            #expect(error as? CurlTransportError == .invalidHeaderValue(name: "X-Token"))
        }
        // The description names the header, never its value.
        #expect(!"\(CurlTransportError.invalidHeaderValue(name: "X-Token"))".contains("a\r\n"))
    }

    @Test("a URL that is not http(s) is refused")
    func otherSchemes() async throws {
        await #expect(throws: CurlTransportError.unsupportedURL(scheme: "file")) {
            try await CurlTransport().send(URL(string: "file:///etc/passwd")!)
        }
    }
}

#endif
