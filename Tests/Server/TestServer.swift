import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A running instance of Courier's Python test server (`Tests/Server/server.py`), listening
/// on an ephemeral port of 127.0.0.1.
///
/// Two ways to use it. Suites that only read from the server (echo, status codes, faults
/// chosen by the route) share one instance for the whole test process (the integration
/// tests' `SharedServer`), so a parallel run does not start a Python process per test. A
/// test or suite that reads the server's counters or changes its configuration starts its
/// own, so that state never leaks between tests that run in parallel:
///
/// ```swift
/// let server = try await TestServer.start(tokenLifetime: 2)
/// defer { server.stop() }
/// let token = try await server.issueToken(lifetime: 2)   // RFC 6749 token response JSON
/// try await server.configure(.init(tokenFault: .status500, tokenFaultCount: 1))
/// // … drive a provider against server.url("/api/profile") …
/// let counters = try await server.counters()
/// #expect(counters.refreshGrants == 2)
/// ```
///
/// The Python process reads its standard input until end-of-file and exits then, so it
/// ends with ``stop()``, with `deinit`, and also when the test process dies.
public final class TestServer: @unchecked Sendable {
    // Its own lock rather than CourierTesting's LockIsolated: CourierTestServer depends on
    // nothing.
    // @unchecked Sendable: the only mutable field, `isStopped`, and every use of `process`
    // and `standardInput` are guarded by `lock`; the other stored properties are immutable
    // and Sendable.

    /// The loopback port the server listens on.
    public let port: Int

    /// `http://127.0.0.1:<port>`, with no trailing slash (`https://127.0.0.1:<front port>`
    /// when the environment puts an HTTPS front before the server: see `TestServerFront`).
    public var baseURL: URL {
        URL(string: origin)!
    }

    /// Where requests go: the server itself, or its HTTPS front.
    private var origin: String {
        front.map { "https://127.0.0.1:\($0.port)" } ?? "http://127.0.0.1:\(port)"
    }

    /// The HTTPS front before the server, when the environment asks for one.
    private let front: TestServerFront?

    private let lock = NSLock()
    private var isStopped = false
    private let process: Process
    private let standardInput: Pipe
    private let log: ProcessOutputLog
    /// Ephemeral, cache-less session for the admin calls (10 s time-out).
    let adminSession: URLSession

    private init(port: Int, process: Process, standardInput: Pipe, log: ProcessOutputLog, front: TestServerFront?) {
        self.port = port
        self.front = front
        self.process = process
        self.standardInput = standardInput
        self.log = log
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 10
        configuration.timeoutIntervalForResource = 10
        self.adminSession = URLSession(configuration: configuration)
    }

    deinit {
        stop()
        // Invalidated only here, when no admin call can be in flight: on Linux,
        // `data(for:)` on an invalidated session is a fatal error, not a thrown one.
        adminSession.finishTasksAndInvalidate()
    }

    /// Starts `server.py` on an ephemeral loopback port and waits until it answers.
    ///
    /// - Parameters:
    ///   - tokenLifetime: lifetime, in seconds, of the access tokens the server issues
    ///     (fractions allowed); `nil` issues tokens without `expires_in` that never expire.
    ///     Change it later with ``configure(_:)``.
    ///   - file: the caller's source file. `server.py` is looked up next to *this* file
    ///     first; the caller's file is only a fallback (its ancestors are searched for
    ///     `Tests/Server/server.py`) and names the caller in errors. The environment variable
    ///     `COURIER_TEST_SERVER_SCRIPT` overrides both.
    /// - Returns: the running server; call ``stop()`` when done (`deinit` does it too).
    /// - Throws: ``TestServerError`` when the script is missing, python3 cannot start, no
    ///   `PORT <n>` line arrives within 20 seconds, or the server does not answer within
    ///   5 seconds.
    public static func start(tokenLifetime: TimeInterval? = 3600, file: String = #filePath) async throws -> TestServer {
        let script = try ServerScript.locate(callerFile: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-u", script.path,
            "--port", "0",
            "--host", "127.0.0.1",
            "--token-lifetime", tokenLifetime.map { String($0) } ?? "none",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        environment["PYTHONUNBUFFERED"] = "1"
        process.environment = environment
        let standardInput = Pipe()
        let standardOutput = Pipe()
        let standardError = Pipe()
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = standardError

        do {
            try process.run()
        } catch {
            throw TestServerError.launchFailed(
                command: "/usr/bin/env python3 \(script.path)",
                reason: String(describing: error)
            )
        }

        let log = ProcessOutputLog()
        log.drain(standardError.fileHandleForReading)
        let port: Int
        do {
            // The PORT line is the event; the bound only catches a server that never starts, and
            // is longer than a loaded machine takes to start many servers at once.
            port = try await PortAnnouncement.read(from: standardOutput.fileHandleForReading, timeout: 300)
        } catch let failure as PortAnnouncement.Failure {
            abandon(process, standardInput: standardInput)
            throw TestServerError.noPortAnnounced(
                reason: failure.description,
                caller: file,
                standardError: log.text(waitingUpTo: 1)
            )
        }

        var front: TestServerFront?
        if let settings = TestServerFront.settings {
            do {
                front = try await TestServerFront.start(upstream: port, settings: settings)
            } catch {
                abandon(process, standardInput: standardInput)
                throw error
            }
        }
        let server = TestServer(port: port, process: process, standardInput: standardInput, log: log, front: front)
        do {
            try await server.waitUntilReady()
        } catch {
            server.stop()
            throw TestServerError.notReady(
                port: port,
                lastError: String(describing: error),
                standardError: log.text(waitingUpTo: 1)
            )
        }
        return server
    }

    /// `baseURL` followed by `path`, which may carry a query: `url("/echo?x=1")`.
    ///
    /// A missing leading `/` is added.
    public func url(_ path: String) -> URL {
        let suffix = path.hasPrefix("/") ? path : "/" + path
        guard let url = URL(string: origin + suffix) else {
            preconditionFailure("TestServer.url: \(path) does not form a valid URL")
        }
        return url
    }

    /// `http://127.0.0.1:<port>` followed by `path`: the server itself, never its front (for
    /// the admin calls, made with a `URLSession` that could not trust the front).
    func originURL(_ path: String) -> URL {
        let suffix = path.hasPrefix("/") ? path : "/" + path
        guard let url = URL(string: "http://127.0.0.1:\(port)\(suffix)") else {
            preconditionFailure("TestServer.originURL: \(path) does not form a valid URL")
        }
        return url
    }

    /// What the server wrote to its standard error so far (tracebacks of requests that
    /// failed with 500), for test diagnostics. Never contains tokens.
    public var standardErrorText: String {
        log.text(waitingUpTo: 0)
    }

    /// Stops the server: closes its standard input, terminates it and waits (at most about
    /// 2 seconds, then `SIGKILL`). Safe to call more than once, from any thread; admin calls
    /// made after it throw ``TestServerError/adminRequestFailed(path:status:detail:)``.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !isStopped else { return }
        isStopped = true
        front?.stop()
        Self.abandon(process, standardInput: standardInput)
    }

    /// Closes the process's standard input (server.py exits on EOF) and sends `SIGTERM`; a
    /// background queue waits up to 2 s and then sends `SIGKILL`.
    ///
    /// It does not wait itself: tests stop servers from async code, and a blocked cooperative
    /// thread (there are two on a 2-core machine) would hold up every other test's timers.
    private static func abandon(_ process: Process, standardInput: Pipe) {
        try? standardInput.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
        }
        reaper.async {
            if !ProcessWaiter.wait(for: process, upTo: 2) {
                ProcessWaiter.kill(process)
                _ = ProcessWaiter.wait(for: process, upTo: 2)
            }
        }
    }

    /// Where stopped servers are waited for.
    private static let reaper = DispatchQueue(label: "CourierTestServer.reaper", attributes: .concurrent)

    /// Whether ``stop()`` was called.
    var hasStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isStopped
    }

    /// `GET /echo` answers 200. The server prints PORT once it listens, so one request is
    /// the check: no polling, and a time-out (on the patient session) long enough for a
    /// loaded machine.
    private func waitUntilReady() async throws {
        var request = URLRequest(url: originURL("/echo"))
        request.timeoutInterval = 300
        let (_, response) = try await Self.patientSession.dataStartedOffPool(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw TestServerError.adminRequestFailed(path: "/echo", status: nil, detail: "no 200 answer")
        }
    }
}
