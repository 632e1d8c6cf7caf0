import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every documented time-out holds, however the server spends the time, and fails as
/// `URLError(.timedOut)` naming the request. Each hostile route keeps sending for a minute and
/// then finishes: a time-out proves the transport stopped it long before; the suite's time
/// limit bounds the test.
extension HostileServerTests {
    /// Expects `result` to be a time-out that names the request to `path`.
    func expectTimedOut(_ result: Result<Response, CourierError>, path: String, method: String = "GET") {
        #expect(urlErrorCode(result) == .timedOut, "\(result)")
        guard case .failure(let error) = result, let urlError = error.underlyingError as? URLError else { return }
        #expect(urlError.failingURL?.path == path)
        #expect(urlError.localizedDescription.contains(method), "\(urlError.localizedDescription)")
        #expect(urlError.localizedDescription.contains(path), "\(urlError.localizedDescription)")
        #expect(error.localizedDescription.contains(path), "\(error.localizedDescription)")
    }

    @Test(
        "the resource time-out ends a body trickled a byte at a time, a header trickled forever and endless 100 Continue heads",
        arguments: TransportUnderTest.allCases, ["trickle-body", "trickle-headers", "continue-forever"])
    func resourceTimeout(_ kind: TransportUnderTest, route: String) async throws {
        // The request time-out never fires: a byte arrives every 250 ms.
        let provider = Provider<ServerAPI>(transport: kind.make(requestTimeout: 30, resourceTimeout: 2))
        let key = "\(route)-\(UUID().uuidString)"
        let result = await outcome(provider, ServerAPI(server, "hostile/\(route)/\(key)", task: query(["seconds": 60])))

        expectTimedOut(result, path: "/hostile/\(route)/\(key)")
    }

    @Test(
        "the resource time-out spans the redirects: a redirect to a trickled body still times out",
        arguments: TransportUnderTest.allCases)
    func resourceTimeoutAcrossRedirects(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(requestTimeout: 30, resourceTimeout: 2))
        let key = "redirected-trickle-\(UUID().uuidString)"
        let result = await outcome(
            provider, redirect(307, to: "/hostile/trickle-body/\(key)?seconds=60", method: .post, body: Data("{}".utf8))
        )

        #expect(urlErrorCode(result) == .timedOut, "\(result)")
    }

    @Test(
        "the request time-out ends a server that sends nothing, naming the request",
        arguments: TransportUnderTest.allCases)
    func requestTimeout(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(requestTimeout: 1, resourceTimeout: 60))
        let result = await outcome(provider, ServerAPI(server, "fault/slow-headers/60000"))

        expectTimedOut(result, path: "/fault/slow-headers/60000")
    }

    @Test(
        "a URLRequest's own shorter timeoutInterval applies to that request",
        arguments: TransportUnderTest.allCases)
    func requestsOwnTimeout(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(
            requestClosure: { endpoint in
                var request = try endpoint.urlRequest()
                request.timeoutInterval = 1
                return request
            }, transport: kind.make(requestTimeout: 60, resourceTimeout: 120))
        let result = await outcome(provider, ServerAPI(server, "fault/slow-headers/60000"))

        expectTimedOut(result, path: "/fault/slow-headers/60000")
    }

    /// Time-outs a caller might set: none of them may crash the process or fail a request
    /// at once.
    static let oddTimeouts: [TimeInterval] = [.infinity, .greatestFiniteMagnitude, 1e300, 0.9, 0, -1, .nan]

    @Test(
        "an infinite, huge, fractional, zero, negative or NaN time-out neither crashes nor fails a quick request",
        arguments: TransportUnderTest.allCases, oddTimeouts)
    func oddTimeoutValues(_ kind: TransportUnderTest, seconds: TimeInterval) async throws {
        let configured = Provider<ServerAPI>(transport: kind.make(requestTimeout: seconds, resourceTimeout: seconds))
        #expect(try await configured.request(ServerAPI(server, "echo")).statusCode == 200)

        let perRequest = Provider<ServerAPI>(
            requestClosure: { endpoint in
                var request = try endpoint.urlRequest()
                request.timeoutInterval = seconds
                return request
            }, transport: kind.make(timeout: 30))
        #expect(try await perRequest.request(ServerAPI(server, "echo")).statusCode == 200)
    }
}

/// Interim responses are bounded in number, whatever the time-outs.
extension HostileServerTests {
    @Test(
        "a server sending 100 Continue forever is cut off after a few dozen heads, even with the default week-long resource time-out",
        arguments: TransportUnderTest.allCases)
    func endlessInterimResponses(_ kind: TransportUnderTest) async throws {
        // Without a bound the answer, a 200, would come after a minute of heads.
        let provider = Provider<ServerAPI>(transport: kind.make(requestTimeout: 30, resourceTimeout: 7 * 24 * 3600))
        let key = "interim-\(UUID().uuidString)"
        let result = await outcome(
            provider,
            ServerAPI(
                server, "hostile/continue-forever/\(key)",
                task: query(["seconds": 60, "interval_ms": 20, "final": 1])))

        let code = urlErrorCode(result)
        #expect(code == .badServerResponse || code == .cannotParseResponse, "\(result)")
        guard case .failure(let error) = result, let urlError = error.underlyingError as? URLError else { return }
        #expect(urlError.failingURL?.path == "/hostile/continue-forever/\(key)")
    }

    @Test("one 100 Continue before the answer is no trouble", arguments: TransportUnderTest.allCases)
    func oneInterimResponse(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let response = try await provider.request(
            ServerAPI(
                server, "hostile/continue-forever/interim-once-\(UUID().uuidString)",
                task: query(["seconds": 0, "interval_ms": 1, "final": 1])))
        #expect(response.statusCode == 200)
        #expect(response.data == Data("ok".utf8))
    }
}
