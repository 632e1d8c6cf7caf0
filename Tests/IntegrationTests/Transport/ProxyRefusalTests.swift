import Courier
import CourierTestServer
import Foundation
import Testing

/// A proxy that refuses to open a tunnel (`CONNECT`) is named as such: a 407 (or a 401) asks for
/// proxy credentials, `URLError(.userAuthenticationRequired)`; never a lost connection.
///
/// Both transports take their proxy from the environment (libcurl's `https_proxy`), so each
/// case runs in a child process (CourierWireProbe) whose environment points at
/// Tests/Server/refusing_proxy.py: the test process's own environment, which other suites
/// share, is never changed.
@Suite("A proxy that refuses the tunnel", .timeLimit(.minutes(20)))
struct ProxyRefusalTests {
    /// What the probe printed.
    struct ProbeResult {
        let code: Int?
        let line: String
    }

    @Test(
        "a proxy answering CONNECT with 407 or 401: userAuthenticationRequired saying the proxy refused and asks for credentials",
        arguments: TransportUnderTest.allCases, [407, 401])
    func refusedTunnel(_ kind: TransportUnderTest, status: Int) async throws {
        let proxy = try await HelperServer.start("refusing_proxy.py", arguments: ["\(status)"])
        defer { proxy.stop() }
        let port = try proxy.port("port")
        // Nothing listens on the target: the request can only fail at the proxy.
        let result = try await Self.probe(kind, url: "https://127.0.0.1:9/hello", proxyPort: port)

        #expect(result.code == URLError.Code.userAuthenticationRequired.rawValue, "\(result.line)")
        #expect(result.line.contains("the proxy refused to open a tunnel"), "\(result.line)")
        if status == 407 {
            #expect(result.line.contains("407 Proxy Authentication Required"), "\(result.line)")
            #expect(result.line.contains("proxy credentials"), "\(result.line)")
        }
        #expect(!result.line.contains("connection was lost"), "\(result.line)")
    }

    @Test(
        "a proxy answering CONNECT with 403 is a refusal too: cannotConnectToHost saying so",
        arguments: TransportUnderTest.allCases)
    func forbiddenTunnel(_ kind: TransportUnderTest) async throws {
        let proxy = try await HelperServer.start("refusing_proxy.py", arguments: ["403"])
        defer { proxy.stop() }
        let result = try await Self.probe(kind, url: "https://127.0.0.1:9/hello", proxyPort: try proxy.port("port"))

        #expect(result.code == URLError.Code.cannotConnectToHost.rawValue, "\(result.line)")
        #expect(result.line.contains("answered 403 to CONNECT"), "\(result.line)")
    }

    /// Runs CourierWireProbe with `kind` against `url` through the proxy on `proxyPort`.
    static func probe(_ kind: TransportUnderTest, url: String, proxyPort: Int) async throws -> ProbeResult {
        // The test bundle and the package's executables are built into the same directory.
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let probe = directory.appendingPathComponent("CourierWireProbe")
        guard FileManager.default.isExecutableFile(atPath: probe.path) else {
            Issue.record("no CourierWireProbe beside the tests at \(probe.path): build with --build-tests first")
            throw CocoaError(.fileNoSuchFile)
        }
        let process = Process()
        process.executableURL = probe
        process.arguments = [kind.rawValue, url]
        var environment = ProcessInfo.processInfo.environment
        for name in ["http_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            environment[name] = nil
        }
        environment["https_proxy"] = "http://127.0.0.1:\(proxyPort)"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = try await Self.readToEnd(output.fileHandleForReading)
        process.waitUntilExit()
        let line = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let words = line.split(separator: " ")
        let code = words.first == "FAILED" && words.count > 1 ? Int(words[1]) : nil
        return ProbeResult(code: code, line: line)
    }

    /// Everything `handle` gives until end-of-file, read off the cooperative threads.
    static func readToEnd(_ handle: FileHandle) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try handle.readToEnd() ?? Data() }) }.start()
        }
    }
}
