import CourierTestServer

/// One test server shared by the suites that only read from it (echo, status, faults), so a
/// parallel test run does not start a Python process per test. Suites that count requests
/// or change the server's configuration start their own.
enum SharedServer {
    private static let started = Task { try await TestServer.start() }

    /// The shared server, started on first use; it ends with the test process.
    static func get() async throws -> TestServer {
        try await started.value
    }
}
