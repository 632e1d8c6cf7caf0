import Foundation

/// An HTTPS front before a test server — nginx with TLS 1.3 and HTTP/2 (`h2_front.py`) — so
/// that suites written against ``TestServer`` run over HTTP/2 unchanged. Off unless the
/// environment turns it on, as the CurlTransport step of `.ci/run` does:
///
/// - `COURIER_TEST_SERVER_FRONT`: the path of `h2_front.py`;
/// - `COURIER_TEST_SERVER_FRONT_CERT`, `COURIER_TEST_SERVER_FRONT_KEY`: the PEM certificate
///   (for 127.0.0.1 and localhost) and key every front serves, which the transports under
///   test trust.
///
/// With it on, ``TestServer/baseURL`` and ``TestServer/url(_:)`` lead to the front;
/// ``TestServer/port`` stays the server's own (plain http) port, and the admin calls go there.
struct TestServerFront: Sendable {
    /// The front's port on 127.0.0.1 (https).
    let port: Int
    private let process: Process
    private let standardInput: Pipe

    /// What the environment asks for, or `nil` when the front is off.
    struct Settings: Sendable {
        let script: String
        let certificate: String
        let key: String
    }

    /// The front the environment asks for, read once.
    static let settings: Settings? = {
        let environment = ProcessInfo.processInfo.environment
        guard let script = environment["COURIER_TEST_SERVER_FRONT"], !script.isEmpty,
            let certificate = environment["COURIER_TEST_SERVER_FRONT_CERT"],
            let key = environment["COURIER_TEST_SERVER_FRONT_KEY"]
        else { return nil }
        return Settings(script: script, certificate: certificate, key: key)
    }()

    /// Starts a front for the server on `upstream`, as `settings` says; returns once it listens.
    static func start(upstream: Int, settings: Settings) async throws -> TestServerFront {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-u", settings.script, "\(upstream)", "--cert", settings.certificate, "--key", settings.key,
        ]
        let standardInput = Pipe()
        let standardOutput = Pipe()
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        do {
            try process.run()
        } catch {
            throw TestServerError.launchFailed(
                command: "/usr/bin/env python3 \(settings.script)", reason: String(describing: error))
        }
        do {
            let port = try await PortAnnouncement.read(from: standardOutput.fileHandleForReading, timeout: 20)
            return TestServerFront(port: port, process: process, standardInput: standardInput)
        } catch {
            try? standardInput.fileHandleForWriting.close()
            if process.isRunning { process.terminate() }
            throw TestServerError.noPortAnnounced(
                reason: "the HTTPS front \(settings.script): \(error)", caller: #filePath, standardError: "")
        }
    }

    /// Ends the front: it stops nginx when its input closes.
    func stop() {
        try? standardInput.fileHandleForWriting.close()
    }
}
