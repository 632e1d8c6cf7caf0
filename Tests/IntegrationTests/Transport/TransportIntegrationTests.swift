import Courier
import CourierTestServer
import CourierTesting
import Dispatch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Transports against the test server", .timeLimit(.minutes(20)))
struct TransportIntegrationTests {
    let server: TestServer

    init() async throws {
        server = try await TestServer.start()
    }

    @Test(
        "cancelling the calling task stops a request at the server while the server still holds it",
        arguments: TransportUnderTest.allCases)
    func taskCancellation(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        let key = "task-\(UUID().uuidString)"
        let task = Task { try await provider.request(ServerAPI(server, TestServer.heldPath(key))) }
        try await server.waitForHeldRequest(key)
        task.cancel()
        // The server holds the answer until it is released below (ten minutes at most, longer
        // than the suite's time limit): a result now proves the cancel cut the transfer short,
        // however loaded the machine.
        let result = await task.result
        try await server.releaseHeldRequest(key)
        guard case .failure(let error) = result else {
            Issue.record("the cancelled request succeeded")
            return
        }
        #expect((error as? CourierError)?.isCancelled == true)
    }

    @Test("a task cancelled before the request starts never reaches the server", arguments: TransportUnderTest.allCases)
    func cancelledBeforeStart(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        let before = try await server.counters().requestsTotal
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await provider.request(ServerAPI(server, "echo"))
        }
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("the cancelled request succeeded")
            return
        }
        #expect((error as? CourierError)?.isCancelled == true)
        // Admin calls are not counted, so nothing at all reached the server.
        #expect(try await server.counters().requestsTotal == before)
    }

    @Test(
        "cancelling the Cancellable stops the transfer and delivers .cancelled", arguments: TransportUnderTest.allCases)
    func cancellable(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        let key = "cancellable-\(UUID().uuidString)"
        let cancelled = LockIsolated<Bool?>(nil)
        let request = provider.request(
            ServerAPI(server, TestServer.heldPath(key)), callbackQueue: DispatchQueue(label: "t")
        ) { result in
            if case .failure(let error) = result {
                cancelled.setValue(error.isCancelled)
            } else {
                cancelled.setValue(false)
            }
        }
        try await server.waitForHeldRequest(key)
        request.cancel()
        // Delivered while the server still holds the answer (until the release below).
        let outcome = try await cancelled.wait { $0 != nil }
        try await server.releaseHeldRequest(key)
        #expect(outcome == true)
    }

    @Test(
        "a 401 with a Basic or Digest challenge comes back as a response, not a time-out",
        arguments: TransportUnderTest.allCases, ["basic", "digest"])
    func challengeComesBack(_ kind: TransportUnderTest, scheme: String) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        // Without the transport's challenge handling the task would not complete until the
        // request time-out, and end in `.timedOut` instead of this response.
        let response = try await provider.request(ServerAPI(server, "challenge/\(scheme)"))
        #expect(response.statusCode == 401)
        #expect(
            response.response?.value(forHTTPHeaderField: "WWW-Authenticate")?.lowercased().hasPrefix(scheme) == true)
        #expect(try response.mapJSON() is [String: Any])
    }

    @Test(
        "a redirect to another host drops Authorization; a same-host redirect keeps it",
        arguments: TransportUnderTest.allCases)
    func redirects(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        let headers = ["Authorization": "Bearer secret-token", "X-Other": "kept"]
        let crossHost = "http://localhost:\(server.port)/echo"
        let cross = try await provider.request(
            ServerAPI(
                server, "redirect",
                task: .requestParameters(parameters: ["to": crossHost], encoding: URLEncoding.queryString),
                headers: headers)
        ).echo()
        #expect(cross.header("Authorization") == nil)
        #expect(cross.header("X-Other") == "kept")
        #expect(cross.header("Host")?.hasPrefix("localhost") == true)

        let same = try await provider.request(ServerAPI(server, "redirect-same/echo", headers: headers)).echo()
        #expect(same.header("Authorization") == "Bearer secret-token")
        #expect(same.path == "/echo")
    }

    @Test(
        "status codes come back as responses, and validation turns them into statusCode errors",
        arguments: TransportUnderTest.allCases)
    func statusCodes(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        for code in [200, 201, 204, 400, 404, 500, 503] {
            let response = try await provider.request(ServerAPI(server, "status/\(code)"))
            #expect(response.statusCode == code)
        }
        var validated = ServerAPI(server, "status/500")
        validated.validationType = .successCodes
        await #expect {
            try await provider.request(validated)
        } throws: { error in
            if case .statusCode(let response) = error as? CourierError { return response.statusCode == 500 }
            return false
        }
    }

    @Test(
        "plugins run in order for a real request, and the server sees what prepare set",
        arguments: TransportUnderTest.allCases)
    func hookOrderOverTheNetwork(_ kind: TransportUnderTest) async throws {
        let log = OrderLog()
        let provider = Provider<ServerAPI>(
            transport: kind.make(),
            plugins: [
                OrderPlugin(name: "A", log: log), OrderPlugin(name: "B", log: log),
            ])
        let echo = try await provider.request(ServerAPI(server, "echo")).echo()
        #expect(
            log.entries == [
                "A.prepare", "B.prepare", "A.willSend", "B.willSend", "A.didReceive", "B.didReceive", "A.process",
                "B.process",
            ])
        #expect(echo.header("X-Plugin") == "B")
    }

    @Test("connection refused is an underlying URLError, not a crash", arguments: TransportUnderTest.allCases)
    func connectionRefused(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        var target = ServerAPI(server, "echo")
        target.base = URL(string: "http://127.0.0.1:1")!
        await #expect {
            try await provider.request(target)
        } throws: { error in
            guard case .underlying(let underlying, nil) = error as? CourierError else { return false }
            return underlying is URLError
        }
    }

    @Test("non-JSON mapped as JSON is a typed error", arguments: TransportUnderTest.allCases)
    func nonJSON(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        let response = try await provider.request(ServerAPI(server, "json/invalid"))
        #expect(throws: CourierError.self) { try response.mapJSON() }
        let nested = try await provider.request(ServerAPI(server, "json/nested"))
        #expect(try nested.mapString(atKeyPath: "data.user.tags.0") == "a")
    }
}

/// Records hook calls in order.
final class OrderLog: Sendable {
    private let recorded = LockIsolated<[String]>([])
    func append(_ entry: String) { recorded.withValue { $0.append(entry) } }
    var entries: [String] { recorded.value }
}

/// Records its hooks and sets `X-Plugin` to its name in `prepare`.
struct OrderPlugin: PluginType {
    let name: String
    let log: OrderLog

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        log.append("\(name).prepare")
        var request = request
        request.setValue(name, forHTTPHeaderField: "X-Plugin")
        return request
    }
    func willSend(_ request: URLRequest, target: any TargetType) { log.append("\(name).willSend") }
    func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
        log.append("\(name).didReceive")
    }
    func process(_ result: Result<Response, CourierError>, target: any TargetType) -> Result<Response, CourierError> {
        log.append("\(name).process")
        return result
    }
}
