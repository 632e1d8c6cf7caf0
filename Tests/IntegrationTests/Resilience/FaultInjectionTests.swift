import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A misbehaving server seen through the provider: bodies that do not map, and failures that
/// retries recover from (or spend). The faults on the wire, which every transport must
/// handle, are in `Transport/TransportFaultTests.swift`. Each request has a 10 s time-out.
@Suite("Fault injection against the test server", .timeLimit(.minutes(20)))
struct FaultInjectionTests {
    let server: TestServer
    /// Requests time out after 10 s, so nothing can hang, with room for a busy shared server.
    let provider = Self.provider(timeout: 10)

    static func provider(timeout: TimeInterval) -> Provider<ServerAPI> {
        Provider<ServerAPI>(requestClosure: { endpoint in
            var request = try endpoint.urlRequest()
            request.timeoutInterval = timeout
            return request
        })
    }

    init() async throws {
        server = try await SharedServer.get()
    }

    @Test("invalid JSON mapped as JSON is a jsonMapping error carrying the response")
    func invalidJSON() async throws {
        let response = try await provider.request(ServerAPI(server, "json/invalid"))
        #expect {
            try response.mapJSON()
        } throws: { error in
            if case .jsonMapping(let carried) = error as? CourierError { return carried.statusCode == 200 }
            return false
        }
    }

    @Test("a 1 MiB body maps to JSON and to Decodable at a key path")
    func bigJSON() async throws {
        struct Item: Decodable { let id: Int; let name: String }
        let response = try await provider.request(ServerAPI(server, "json/big"))
        #expect(response.data.count > 900_000)
        let items = try response.map([Item].self, atKeyPath: "items")
        #expect(items.count > 10_000)
        #expect(items[5].name == "item-5")
    }

    @Test("5xx bursts then recovery: retried to success, honouring Retry-After")
    func burstsThenRecovery() async throws {
        let retrying = Provider<ServerAPI>(retryPolicy: RetryPolicy(maxRetries: 3, baseDelay: 0.05))
        let key = UUID().uuidString
        // The attempt count proves the retries; how long they take on a loaded machine is
        // not the claim (the suite's time limit catches a hang).
        let response = try await retrying.request(flaky(key, ["fail": 3, "status": 503]))
        #expect(response.statusCode == 200)
        #expect(try response.map(Int.self, atKeyPath: "attempt") == 4)

        // The wait the policy asked for is recorded, then waited for real: the server's
        // `Retry-After: 1` is honoured exactly, whatever the machine's load.
        let waits = LockIsolated<[TimeInterval]>([])
        let honouring = Provider<ServerAPI>(
            retryPolicy: RetryPolicy(
                maxRetries: 3, baseDelay: 0.05,
                sleep: { seconds in
                    waits.withValue { $0.append(seconds) }
                    try await RetryPolicy.defaultSleep(seconds)
                }))
        let honoured = try await honouring.request(
            flaky(UUID().uuidString, ["fail": 1, "status": 429, "retry_after": 1]))
        #expect(honoured.statusCode == 200)
        #expect(waits.value == [1])

        // Without a retry policy the 503 is the answer.
        let plain = try await provider.request(flaky(UUID().uuidString, ["fail": 1, "status": 503]))
        #expect(plain.statusCode == 503)
    }

    func flaky(_ key: String, _ query: [String: any Sendable]) -> ServerAPI {
        ServerAPI(
            server, "flaky/\(key)", task: .requestParameters(parameters: query, encoding: URLEncoding.queryString))
    }

    @Test("a connection reset on every attempt spends the retries and ends in a typed error")
    func resetEveryTime() async throws {
        // Its own server: the test counts every request that reaches it.
        let server = try await TestServer.start()
        defer { server.stop() }
        let retrying = Provider<ServerAPI>(retryPolicy: RetryPolicy(maxRetries: 2, baseDelay: 0.01))
        // /fault/reset always resets: the retries are spent and the error is typed.
        await #expect(throws: CourierError.self) {
            try await retrying.request(ServerAPI(server, "fault/reset"))
        }
        // One attempt and two retries; libcurl may silently resend once more on a reused
        // keep-alive connection.
        let attempts = try await server.counters().requestsTotal
        #expect((3...6).contains(attempts), "\(attempts) requests reached the server")
    }
}
