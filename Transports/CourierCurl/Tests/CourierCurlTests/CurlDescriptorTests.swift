// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Connections are limited per host and in all, so a burst queues instead of running the
/// process out of file descriptors; and when it runs out anyway, the error says so and is not
/// retried. Each case runs in a child process (CurlDescriptorProbe) with a lowered
/// `RLIMIT_NOFILE`, so the test process keeps its own limit.
@Suite("CurlTransport under a file-descriptor limit", .timeLimit(.minutes(20)))
struct CurlDescriptorTests {
    struct Report: Decodable {
        struct Failure: Decodable {
            let error: String
            let count: Int
        }
        let limit: Int
        let succeeded: Int
        let sent: Int
        let failures: [Failure]
    }

    /// Runs the probe against `url` and returns its report.
    static func probe(_ url: URL, requests: Int, limit: String) async throws -> Report {
        // The test bundle and the package's executables are built into the same directory.
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let probe = directory.appendingPathComponent("CurlDescriptorProbe")
        guard FileManager.default.isExecutableFile(atPath: probe.path) else {
            Issue.record("no CurlDescriptorProbe beside the tests at \(probe.path): build with --build-tests first")
            throw CocoaError(.fileNoSuchFile)
        }
        let process = Process()
        process.executableURL = probe
        process.arguments = [url.absoluteString, "\(requests)", limit]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = try await Self.readToEnd(output.fileHandleForReading)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try JSONDecoder().decode(Report.self, from: data)
    }

    /// Everything `handle` gives until end-of-file, read off the cooperative threads.
    static func readToEnd(_ handle: FileHandle) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try handle.readToEnd() ?? Data() }) }.start()
        }
    }

    @Test("400 requests at once to one host with 256 descriptors all succeed: the connections past the limit queue")
    func burstQueues() async throws {
        let server = try await SharedCurlServer.get()
        let report = try await Self.probe(server.url("delay/20"), requests: 400, limit: "256")
        #expect(report.succeeded == 400, "\(report.failures.map { "\($0.count)× \($0.error)" })")
        #expect(report.sent == 400)
    }

    @Test("out of descriptors: the error says so, is not cannotConnectToHost, and RetryPolicy does not retry it")
    func exhaustion() async throws {
        let server = try await SharedCurlServer.get()
        // Four descriptors to spare: far fewer than the 64 connections the host may have.
        let report = try await Self.probe(server.url("delay/200"), requests: 40, limit: "free+4")
        #expect(report.succeeded < 40)
        #expect(!report.failures.isEmpty)
        for failure in report.failures {
            #expect(failure.error.hasPrefix("\(URLError.Code.cannotLoadFromNetwork.rawValue) "), "\(failure.error)")
            #expect(failure.error.contains("run out of file descriptors"), "\(failure.error)")
        }
        #expect(!RetryPolicy.defaultRetryableURLErrorCodes.contains(.cannotLoadFromNetwork))
        // Each request was sent once: no failure was retried.
        #expect(report.sent == 40)
    }
}

#endif
