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

/// The loop thread: handles pooled, connections kept alive across quiet spells, callbacks on
/// the loop thread, and many requests and cancellations at once that all end.
@Suite("CurlTransport's loop, pool and connections", .timeLimit(.minutes(20)))
struct CurlLoopTests {
    let server: TestServer

    init() async throws {
        server = try await SharedCurlServer.get()
    }

    @Test("sequential requests reuse one easy handle and one kept-alive connection, also after a quiet spell")
    func reuse() async throws {
        let transport = CurlTransport()
        for _ in 0..<50 {
            #expect(try await transport.send(server.url("echo")).statusCode == 200)
        }
        // A quiet spell: no request in flight, so no easy handle in the multi handle.
        try await Task.sleep(nanoseconds: 1_500_000_000)
        #expect(try await transport.send(server.url("echo")).statusCode == 200)
        let statistics = transport.loop.statistics
        #expect(statistics.easyHandlesCreated == 1)
        #expect(statistics.hopsStarted == 51)
        #expect(statistics.connectionsOpened == 1, "\(statistics)")
        // Other threads wake the loop only when it sleeps: at most once per request here.
        #expect(statistics.wakeups <= 51, "\(statistics)")
    }

    @Test("32 requests in flight use at most 32 handles, and a second round reuses them and their connections")
    func concurrentReuse() async throws {
        let transport = CurlTransport()
        for _ in 0..<2 {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<32 {
                    group.addTask { try await transport.send(server.url("delay/50")).statusCode }
                }
                for try await status in group { #expect(status == 200) }
            }
        }
        let statistics = transport.loop.statistics
        #expect(statistics.easyHandlesCreated <= 32)
        #expect(statistics.hopsStarted == 64)
        #expect(statistics.connectionsOpened <= 32, "\(statistics)")
    }

    @Test("libcurl's callbacks, and so progress, run on the transport's own thread")
    func callbacksOnTheLoopThread() async throws {
        let names = NameLog()
        let transport = CurlTransport()
        let loop = transport.loop
        let response = try await transport.send(
            server.url("bytes/300000"), progress: { _, _ in names.append(loop.isOnLoopThread ? "loop" : "other") })
        #expect(response.data == Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
        #expect(!names.all.isEmpty)
        #expect(names.all.allSatisfy { $0 == "loop" })
        #expect(!loop.isOnLoopThread)
    }

    @Test("300 requests, 32 at a time, a third of them cancelled at random moments: every one ends, promptly")
    func cancellationStorm() async throws {
        let transport = CurlTransport()
        // Promptly: a request that did not end would hold the group, and the suite's time limit
        // would end the test.
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            var outcomes: [String] = []
            for index in 0..<300 {
                if index >= 32, let outcome = try await group.next() { outcomes.append(outcome) }
                group.addTask {
                    let request = Task { try await transport.send(server.url("delay/\(index % 7 * 20)")) }
                    if index % 3 == 0 {
                        try await Task.sleep(nanoseconds: UInt64(index % 5) * 10_000_000)
                        request.cancel()
                    }
                    switch await request.result {
                    case .success(let response): return "\(response.statusCode)"
                    case .failure(let error): return error is CancellationError ? "cancelled" : "\(error)"
                    }
                }
            }
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.count == 300)
        #expect(outcomes.allSatisfy { $0 == "200" || $0 == "cancelled" }, "\(Set(outcomes))")
        #expect(outcomes.filter { $0 == "200" }.count >= 200)
        // The handles of cancelled requests went back to the pool.
        #expect(transport.loop.statistics.easyHandlesCreated <= 40)
    }

    @Test("a released transport ends its thread: twenty transports come and go without leaving threads behind")
    func releasedTransports() async throws {
        // Warm up the process's own threads (Dispatch, the test server's readers) first.
        _ = try await CurlTransport().send(server.url("echo"))
        let before = Self.threadCount()
        for _ in 0..<20 {
            let transport = CurlTransport()
            #expect(try await transport.send(server.url("echo")).statusCode == 200)
        }
        // Each loop thread exits once it sees the stop, which nothing announces: the count is
        // read again until it drops, bounded only as a hang detector (5 minutes), since a
        // busy machine may take long to run an exiting thread.
        var after = Self.threadCount()
        var reads = 0
        while after > before + 2, reads < 3000 {
            try await Task.sleep(nanoseconds: 100_000_000)
            after = Self.threadCount()
            reads += 1
        }
        #expect(after <= before + 2, "\(before) threads before, \(after) after")
    }

    /// The process's threads (Linux: the entries of /proc/self/task).
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}

/// Thread names, from any thread.
final class NameLog: @unchecked Sendable {
    // @unchecked: `lock` guards `names`, the only mutable field.
    private let lock = NSLock()
    private var names: [String] = []
    func append(_ name: String) { lock.withLock { names.append(name) } }
    var all: [String] { lock.withLock { names } }
}

#endif
