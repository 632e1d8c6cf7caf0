import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("GatedTransport", .timeLimit(.minutes(20)))
struct GatedTransportTests {
    struct API: TargetType {
        var id = 0
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "items/\(id)" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    @Test("holds every request until opened, then the wrapped transport answers them all", arguments: 1...5)
    func holdsUntilOpened(round: Int) async throws {
        let transport = GatedTransport(answering: ClosureTransport.successful(statusCode: 204))
        let provider = Provider<API>(transport: transport)
        let count = 20
        let tasks = (0..<count).map { index in Task { try await provider.request(API(id: index)) } }
        try await transport.waitForWaitingRequests(count)
        #expect(transport.waitingCount == count)
        #expect(transport.requests.count == count)

        transport.open()
        for task in tasks { #expect(try await task.value.statusCode == 204) }
        #expect(transport.waitingCount == 0)
        // Once open, later requests pass straight through.
        #expect(try await provider.request(API(id: 99)).statusCode == 204)
        #expect(transport.cancelledCount == 0)
    }

    @Test("a request cancelled while it waits fails at once and is counted; the others still pass", arguments: 1...5)
    func cancelWhileWaiting(round: Int) async throws {
        let transport = GatedTransport(answering: ClosureTransport.successful())
        let provider = Provider<API>(transport: transport)
        let tasks = (0..<3).map { index in Task { try await provider.request(API(id: index)) } }
        try await transport.waitForWaitingRequests(3)

        tasks[round % 3].cancel()
        let result = await tasks[round % 3].result
        #expect((try? result.get()) == nil)
        #expect(((result.error as? CourierError)?.isCancelled) == true, "\(result)")
        #expect(transport.cancelledCount == 1)
        try await transport.waitForCancellations(1)
        #expect(transport.waitingCount == 2)

        transport.open()
        for (index, task) in tasks.enumerated() where index != round % 3 {
            #expect(try await task.value.statusCode == 200)
        }
    }

    @Test("a request whose task is already cancelled never waits at a closed gate")
    func cancelledBeforeArriving() async throws {
        let transport = GatedTransport(answering: ClosureTransport.successful())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(
                TransportRequest(urlRequest: URLRequest(url: URL(string: "https://api.example.com/x")!)))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(transport.waitingCount == 0)
    }
}

extension GatedTransportTests {
    @Test("waitForRequests counts every arrival, whether it waits, passed or was cancelled")
    func waitForRequests() async throws {
        let transport = GatedTransport(answering: ClosureTransport.successful())
        let provider = Provider<API>(transport: transport)
        let first = Task { try await provider.request(API(id: 1)) }
        try await transport.waitForRequests(1)
        first.cancel()
        try await transport.waitForCancellations(1)

        transport.open()
        _ = try await provider.request(API(id: 2))
        try await transport.waitForRequests(2)
        #expect(transport.requests.map { $0.url?.path } == ["/items/1", "/items/2"])
        #expect(transport.cancelledCount == 1)
    }

    @Test("a wait for requests that never come ends with CancellationError when its task is cancelled")
    func waitCancelled() async throws {
        let transport = GatedTransport(answering: ClosureTransport.successful())
        let waiter = Task { try await transport.waitForWaitingRequests(1) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }
}

extension Result {
    fileprivate var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
