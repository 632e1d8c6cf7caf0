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

/// `close()`, for a service that stops on SIGTERM: the loop thread ends, the connections are
/// closed, and every later request fails with a typed error without sending anything.
@Suite("CurlTransport.close(): thread and connections end, later sends fail typed", .timeLimit(.minutes(20)))
struct CurlCloseTests {
    /// What the idle-close origin reports.
    struct Stats: Decodable {
        let open: Int
        let requests: Int
    }

    /// Sends `path` to the origin on a connection of its own, closed after the answer (so it
    /// never counts among the open connections of a later call).
    static func ask(_ base: URL, _ path: String) async throws -> Response {
        try await URLSessionTransport().send(base.appendingPathComponent(path), headers: ["Connection": "close"])
    }

    /// The origin's stats (their own request counts too).
    static func stats(_ base: URL) async throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: try await ask(base, "stats").data)
    }

    @Test("close() returns once the thread has ended and the origin has seen every connection close")
    func closeEndsThreadAndConnections() async throws {
        // An origin that keeps idle connections for 10 minutes: only the client closes them.
        let helper = try await HelperServer.start("idle_close_forwarder.py", arguments: ["--idle", "600"])
        defer { helper.stop() }
        let origin = URL(string: "http://127.0.0.1:\(try helper.port("origin"))")!
        let transport = CurlTransport()
        for _ in 0..<3 {
            #expect(try await transport.send(origin.appendingPathComponent("item")).statusCode == 200)
        }
        // The transport keeps its connection open, idle.
        _ = try await Self.ask(origin, "wait-open/1")
        #expect(!transport.isClosed)

        await transport.close()
        #expect(transport.isClosed)
        #expect(transport.loop.hasEnded, "close() returned before the loop thread ended")
        // Answers once no connection but its own is open: the transport's was closed.
        _ = try await Self.ask(origin, "wait-open/0")

        // Later requests fail at once, typed, and nothing reaches the origin.
        let before = try await Self.stats(origin)
        for method in ["GET", "POST"] {
            do {
                _ = try await transport.send(
                    origin.appendingPathComponent("item"), method: method, body: Data("x".utf8))
                Issue.record("a \(method) sent through a closed transport succeeded")
            } catch let error as CurlTransportClosedError {
                #expect(!error.wasInFlight)
                #expect(error.method == method)
                #expect(String(describing: error).contains("/item"), "names the request: \(error)")
                #expect(String(describing: error).contains("not sent"))
            }
        }
        let after = try await Self.stats(origin)
        #expect(after.requests == before.requests + 1, "only the second stats request arrived")

        // Closing again does nothing more.
        await transport.close()
        #expect(transport.isClosed)
    }

    @Test("a request in flight when the transport closes fails with wasInFlight; its secrets stay out of the text")
    func inFlightRequestFails() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let key = "close-\(UUID().uuidString)"
        let transport = CurlTransport()
        var url = URLComponents(url: server.url(TestServer.heldPath(key)), resolvingAgainstBaseURL: false)!
        url.queryItems = [URLQueryItem(name: "access_token", value: "s3cr3t-token")]
        let heldURL = url.url!
        let inFlight = Task { () -> (any Error)? in
            do {
                _ = try await transport.send(heldURL)
                return nil
            } catch {
                return error
            }
        }
        try await server.waitForHeldRequest(key)
        await transport.close()
        let error = await inFlight.value
        let closed = try #require(error as? CurlTransportClosedError, "\(String(describing: error))")
        #expect(closed.wasInFlight)
        #expect(closed.description.contains("was cut short"))
        #expect(!closed.description.contains("s3cr3t-token"), "\(closed)")
        try await server.releaseHeldRequest(key)
    }

    @Test("a transport closed before it sent anything ends its thread; many concurrent closes all return")
    func closeIdleAndConcurrently() async throws {
        for _ in 0..<20 {
            let transport = CurlTransport()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { await transport.close() } }
            }
            #expect(transport.loop.hasEnded)
        }
    }
}

#endif
