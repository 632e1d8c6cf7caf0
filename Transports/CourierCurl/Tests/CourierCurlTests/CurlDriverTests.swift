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

/// The loop's driver lock under real concurrency: requests that their own task starts while
/// nobody drives libcurl and requests the loop takes from its queue, at once, mixed with
/// connections the server drops or closes while they idle, requests cancelled while the server
/// holds them, and progress callbacks (which send every request through the queue). Every
/// request must end with its own outcome: its own body, never another request's.
@Suite("CurlTransport's driver lock under load", .timeLimit(.minutes(20)))
struct CurlDriverTests {
    let server: TestServer

    init() async throws {
        server = try await SharedCurlServer.get()
    }

    /// One request of the mix.
    enum Kind: CaseIterable {
        /// A POST to /echo with a body and a header of its own.
        case echo
        /// A GET of a body whose length is the request's own.
        case bytes
        /// The server closes the connection after the head and 10 bytes, with a reset.
        case reset
        /// The server closes the connection after 100 of the 1,000 bytes it promised.
        case truncated
        /// The request asks for its connection to be closed after the answer (the test server
        /// closes it without saying so in its answer).
        case closing
        /// The server closes the kept-alive connection once it has answered, as its idle
        /// time-out would.
        case idleClose
        /// Cancelled once the server holds it.
        case cancelledAtServer
        /// A download with a progress callback.
        case progress
    }

    /// The mix, `count` requests with 32 in flight, through `transport` to `base` (the server
    /// or a front); returns what went wrong, one line per request that did not end as it should.
    static func run(
        _ kinds: [Kind], count: Int, through transport: CurlTransport, server: TestServer,
        base: @escaping @Sendable (String) -> URL
    ) async throws -> [String] {
        try await withThrowingTaskGroup(of: String?.self) { group in
            var problems: [String] = []
            for index in 0..<count {
                if index >= 32, let problem = try await group.next() { problems += problem.map { [$0] } ?? [] }
                let kind = kinds[index % kinds.count]
                group.addTask {
                    await Self.check(kind, index: index, transport: transport, server: server, base: base)
                }
            }
            for try await problem in group { problems += problem.map { [$0] } ?? [] }
            return problems
        }
    }

    /// Sends one request of `kind`; `nil` if it ended as it should, else what happened.
    static func check(
        _ kind: Kind, index: Int, transport: CurlTransport, server: TestServer,
        base: @escaping @Sendable (String) -> URL
    ) async -> String? {
        let id = "driver-\(index)-\(UUID().uuidString)"
        // The requests whose connection the server closes after the answer, without saying so,
        // go to `localhost`, another connection pool than the rest: a POST that picked such a
        // connection just before it closed would be lost (and rightly not sent again), which is
        // HTTP/1.1's keep-alive race, not the transport's.
        func closingPool(_ path: String) -> URL { URL(string: "http://localhost:\(server.port)/\(path)")! }
        do {
            switch kind {
            case .echo:
                let echo = try await transport.send(
                    base("echo"), method: "POST", headers: ["X-Request-Id": id], body: Data(id.utf8)
                ).echo()
                return echo.body == id && echo.header("X-Request-Id") == id ? nil : "echo \(id) got \(echo)"
            case .bytes, .progress:
                let length = (kind == .bytes ? 1_000 : 100_000) + index
                let progress = NameLog()
                var report: (@Sendable (Int64, Int64?) -> Void)?
                if kind == .progress { report = { completed, _ in progress.append("\(completed)") } }
                let response = try await transport.send(base("bytes/\(length)"), progress: report)
                guard response.statusCode == 200, response.data == Self.pattern(length) else {
                    return "bytes/\(length): \(response.statusCode), \(response.data.count) bytes, not its own"
                }
                return kind == .bytes || progress.all.last == "\(length)"
                    ? nil : "progress ended at \(progress.all.last ?? "none")"
            case .reset:
                _ = try await transport.send(base("fault/reset"))
                return "fault/reset succeeded"
            case .truncated:
                _ = try await transport.send(base("fault/truncated"))
                return "fault/truncated succeeded"
            case .closing:
                let echo = try await transport.send(
                    closingPool("echo"), headers: ["Connection": "close", "X-Request-Id": id]
                ).echo()
                return echo.header("X-Request-Id") == id ? nil : "closing \(id) got \(echo)"
            case .idleClose:
                let response = try await transport.send(
                    closingPool("hostile/close-when-idle/\(id)?after_ms=\(index % 2 * 20)"))
                return response.statusCode == 200 && response.data == Data("ok".utf8)
                    ? nil : "close-when-idle: \(response.statusCode)"
            case .cancelledAtServer:
                let request = Task { try await transport.send(base(TestServer.heldPath(id))) }
                try await server.waitForHeldRequest(id)
                request.cancel()
                let result = await request.result
                try await server.releaseHeldRequest(id)
                if case .failure(let error) = result, error is CancellationError { return nil }
                return "held request cancelled at the server ended with \(result)"
            }
        } catch {
            switch (kind, urlErrorCode(error)) {
            case (.reset, .networkConnectionLost?), (.reset, .badServerResponse?), (.reset, .cannotParseResponse?),
                (.truncated, .networkConnectionLost?):
                return nil
            case (.closing, .networkConnectionLost?), (.idleClose, .networkConnectionLost?):
                // libcurl picked a connection of the closing pool before the server's close
                // arrived, and again on each of its retries: the keep-alive race.
                return Self.lostToTheRace
            default:
                return "\(kind) \(id) failed: \(error)"
            }
        }
    }

    /// What ``check(_:index:transport:server:base:)`` returns for a request of the closing
    /// pool that lost the keep-alive race: an honest outcome, unless most of them do.
    static let lostToTheRace = "lost to the keep-alive race"

    /// The test server's /bytes body of `length` bytes.
    static func pattern(_ length: Int) -> Data {
        Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    @Test(
        "1,200 requests with 32 in flight, dropped and closed connections and cancellations among them: each gets its own outcome",
        arguments: [false, true])
    func mixedLoad(withProgress: Bool) async throws {
        let transport = CurlTransport()
        let kinds = Kind.allCases.filter { withProgress || $0 != .progress }
        let outcomes = try await Self.run(kinds, count: 1_200, through: transport, server: server) { server.url($0) }
        let problems = outcomes.filter { $0 != Self.lostToTheRace }
        #expect(problems.isEmpty, "\(problems.count) problems, the first: \(problems.prefix(5))")
        #expect(outcomes.count - problems.count < 1_200 / kinds.count, "most closing requests were lost")
        // The transport still serves, on the connections it keeps.
        let after = try await transport.send(server.url("echo"), headers: ["X-Request-Id": "after"]).echo()
        #expect(after.header("X-Request-Id") == "after")
        let statistics = transport.loop.statistics
        #expect(statistics.easyHandlesCreated <= 40, "\(statistics)")
    }

    @Test("a kept-alive connection the server closes while it idles is replaced: 60 requests in a row succeed")
    func idleClosedConnections() async throws {
        let transport = CurlTransport()
        for index in 0..<60 {
            // Half of them close at once, half a moment after the answer, while the socket is parked.
            let key = "idle-\(index)-\(UUID().uuidString)"
            let closed = try await transport.send(
                server.url("hostile/close-when-idle/\(key)?after_ms=\(index % 2 * 20)"))
            #expect(closed.data == Data("ok".utf8))
            // Another connection may now get the closed one's descriptor number.
            let echo = try await transport.send(server.url("echo"), headers: ["X-Request-Id": key]).echo()
            #expect(echo.header("X-Request-Id") == key)
        }
    }

    @Test(
        "over HTTPS with HTTP/2, 1,000 streams with 32 in flight, cancellations and progress among them, on one connection"
    )
    func mixedLoadOverHTTP2() async throws {
        let front = try await HTTP2Front.start(for: server)
        defer { front.stop() }
        let transport = front.transport()
        let problems = try await Self.run(
            [.echo, .bytes, .cancelledAtServer, .echo, .bytes, .progress], count: 1_000, through: transport,
            server: server
        ) { front.url($0) }
        #expect(problems.isEmpty, "\(problems.count) problems, the first: \(problems.prefix(5))")
        #expect(try await transport.send(front.url("echo")).frontProtocol == "HTTP/2.0")
        #expect(transport.loop.statistics.connectionsOpened == 1, "\(transport.loop.statistics)")
    }
}

#endif
