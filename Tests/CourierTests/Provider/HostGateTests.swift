import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests wait in the per-host queue with no signal of their own: the tests that must know
/// they are queued start them on a ``SerialTaskExecutor`` and wait until it is idle.
@Suite("maxRequestsPerHost: at most N calls per host, the rest wait before they are signed", .timeLimit(.minutes(20)))
struct HostGateTests {
    @Test("off by default: every request reaches the transport at once")
    func offByDefault() async throws {
        let transport = SlotCountingTransport()
        let provider = Provider<HostAPI>(transport: transport)
        #expect(provider.maxRequestsPerHost == nil)
        let tasks = (0..<20).map { index in Task { try await provider.request(.item(index)) } }
        try await transport.waitForInFlight(20)
        transport.open()
        for task in tasks { #expect(try await task.value.statusCode == 200) }
    }

    @Test("a value below 1 counts as 1")
    func clamped() {
        #expect(Provider<HostAPI>(transport: SlotCountingTransport(), maxRequestsPerHost: 0).maxRequestsPerHost == 1)
        #expect(Provider<HostAPI>(transport: SlotCountingTransport(), maxRequestsPerHost: -5).maxRequestsPerHost == 1)
    }

    @Test("never more than the limit in flight to one host, and every request is answered", arguments: 0..<20)
    func limit(round: Int) async throws {
        let limit = 1 + round % 4
        let transport = SlotCountingTransport(.inBatches(of: limit, total: 60))
        let prepares = ConcurrentPrepares()
        let probe = SlotProbe()
        let provider = Provider<HostAPI>(transport: transport, plugins: [prepares, probe], maxRequestsPerHost: limit)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<60 {
                group.addTask { try await provider.request(.item(index)).statusCode }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 60)
        #expect(statuses.allSatisfy { $0 == 200 })
        // Filled to the limit every time (the transport waits for that), never beyond it.
        #expect(transport.maxInFlight == limit)
        // The slot is taken before `prepare`: no more requests are being prepared (signed)
        // than may be sent.
        #expect(prepares.max <= limit)
        // Every slot came back: `limit` new requests hold one at once.
        try await probe.expectFreeSlots(limit) { _ = try await provider.request(.item(1_000 + $0)) }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("requests wait before the plugins prepare them")
    func waitsBeforePrepare() async throws {
        let executor = SerialTaskExecutor()
        let transport = SlotCountingTransport()
        let prepares = ConcurrentPrepares()
        let provider = Provider<HostAPI>(transport: transport, plugins: [prepares], maxRequestsPerHost: 2)
        let tasks = (0..<10).map { index in
            Task(executorPreference: executor) { try await provider.request(.item(index)) }
        }
        // Every request waits now: two in the transport, eight for a slot.
        try await executor.waitUntilIdle()
        #expect(transport.inFlight == 2)
        #expect(prepares.total == 2)
        transport.open()
        for task in tasks { #expect(try await task.value.statusCode == 200) }
        #expect(prepares.total == 10)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("each host has its own limit")
    func perHost() async throws {
        let executor = SerialTaskExecutor()
        let transport = SlotCountingTransport()
        let provider = Provider<HostAPI>(transport: transport, maxRequestsPerHost: 1)
        let first = Task(executorPreference: executor) { try await provider.request(.item(1)) }
        let second = Task(executorPreference: executor) { try await provider.request(.elsewhere) }
        let third = Task(executorPreference: executor) { try await provider.request(.item(2)) }
        // Every request waits now: one per host in the transport, the third for a slot.
        try await executor.waitUntilIdle()
        #expect(transport.inFlight == 2)
        #expect(Set(transport.hosts.map { $0.lowercased() }) == ["a.example.com", "b.example.com"])
        transport.open()
        for task in [first, second, third] { #expect(try await task.value.statusCode == 200) }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("waiting requests go out in the order they came")
    func fifo() async throws {
        let executor = SerialTaskExecutor()
        let transport = SlotCountingTransport()
        let provider = Provider<HostAPI>(transport: transport, maxRequestsPerHost: 1)
        var tasks = [Task(executorPreference: executor) { try await provider.request(.item(0)) }]
        try await executor.waitUntilIdle()
        #expect(transport.inFlight == 1)
        // Each request is queued before the next one starts: that is the order they came in.
        for index in 1..<20 {
            tasks.append(Task(executorPreference: executor) { try await provider.request(.item(index)) })
            try await executor.waitUntilIdle()
        }
        #expect(transport.inFlight == 1)
        transport.open()
        for task in tasks { _ = try await task.value }
        #expect(transport.paths == (0..<20).map { "/items/\($0)" })
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("a caller cancelled while waiting gets .cancelled promptly; nothing is sent for it", arguments: 0..<10)
    func cancelWhileQueued(round: Int) async throws {
        let executor = SerialTaskExecutor()
        let transport = SlotCountingTransport()
        let log = UnsentLog()
        let provider = Provider<HostAPI>(transport: transport, plugins: [log], maxRequestsPerHost: 1)
        let holder = Task(executorPreference: executor) { try await provider.request(.item(0)) }
        try await executor.waitUntilIdle()
        #expect(transport.inFlight == 1)
        let queued = (1...50).map { index in
            Task(executorPreference: executor) { () -> Result<Response, CourierError> in
                do throws(CourierError) {
                    return .success(try await provider.request(.item(index)))
                } catch {
                    return .failure(error)
                }
            }
        }
        // All fifty wait for the slot now.
        try await executor.waitUntilIdle()
        for task in queued { task.cancel() }
        for task in queued {
            guard case .failure(.cancelled) = await task.value else {
                Issue.record("a cancelled waiter did not get .cancelled")
                continue
            }
        }
        // Prompt means: every cancelled waiter ended while the holder still held the slot (its
        // call is in flight until the gate opens), not when the slot came free. No wall-clock
        // bound, so a loaded machine cannot fail it.
        #expect(transport.inFlight == 1)
        #expect(log.unsentCancellations == 50)
        // The slot was not lost: the holder finishes and the next request goes straight out.
        transport.open()
        #expect(try await holder.value.statusCode == 200)
        #expect(try await provider.request(.item(99)).statusCode == 200)
        #expect(transport.paths == ["/items/0", "/items/99"])
    }

    @Test("random cancellations among many waiters: the rest are all answered, no slot leaks", arguments: 0..<20)
    func cancellationStorm(round: Int) async throws {
        let transport = SlotCountingTransport(.immediately)
        let probe = SlotProbe()
        let provider = Provider<HostAPI>(transport: transport, plugins: [probe], maxRequestsPerHost: 1 + round % 3)
        let tasks = (0..<100).map { index in
            Task { () -> Result<Response, CourierError> in
                do throws(CourierError) {
                    return .success(try await provider.request(.item(index)))
                } catch {
                    return .failure(error)
                }
            }
        }
        var cancelled = Set<Int>()
        for index in stride(from: round % 3, to: 100, by: 3) {
            tasks[index].cancel()
            cancelled.insert(index)
        }
        for (index, task) in tasks.enumerated() {
            switch await task.value {
            case .success(let response): #expect(response.statusCode == 200)
            case .failure(.cancelled): #expect(cancelled.contains(index))
            case .failure(let error): Issue.record("request \(index) failed: \(error)")
            }
        }
        #expect(transport.maxInFlight <= 1 + round % 3)
        // No slot leaked, and nobody is left in the line: `limit` new requests hold one at once.
        try await probe.expectFreeSlots(1 + round % 3) { _ = try await provider.request(.item(1_000 + $0)) }
        #expect(try await provider.request(.item(0)).statusCode == 200)
    }

    @Test("a retry keeps its slot: with a limit of 1, retried requests finish and nothing deadlocks")
    func retriesKeepTheSlot() async throws {
        let transport = SlotCountingTransport(.immediately, failFirstAttempts: true)
        let provider = Provider<HostAPI>(
            transport: transport, retryPolicy: RetryPolicy(maxRetries: 2, baseDelay: 0.001, maximumDelay: 0.002),
            maxRequestsPerHost: 1)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask { try await provider.request(.item(index)).statusCode }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 20))
        #expect(transport.maxInFlight == 1)
        // Every request's retry followed its own first attempt, before the next request began.
        let paths = transport.paths
        #expect(paths.count == 40)
        for pair in stride(from: 0, to: paths.count, by: 2) {
            #expect(paths[pair] == paths[pair + 1])
        }
    }

    @Test("with trackInflights and a limit of 1, identical requests share one call without deadlock")
    func sharedCalls() async throws {
        let transport = SlotCountingTransport(.immediately)
        let provider = Provider<HostAPI>(transport: transport, trackInflights: true, maxRequestsPerHost: 1)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                group.addTask { try await provider.request(.item(index % 4)).statusCode }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 40))
        #expect(transport.maxInFlight == 1)
    }

    @Test("a request made inside a call that holds the host's only slot does not wait for it")
    func nestedRequest() async throws {
        let transport = SlotCountingTransport(.immediately)
        let nested = NestedRequestPlugin()
        let provider = Provider<HostAPI>(transport: transport, plugins: [nested], maxRequestsPerHost: 1)
        nested.provider = provider
        // The plugin and the provider hold each other: break the cycle when the test ends.
        defer { nested.provider = nil }
        // A nested request that waited for the slot its own call holds would wait forever:
        // the suite's time limit would end the test.
        let response = try await provider.request(.item(1))
        #expect(response.statusCode == 200)
        #expect(transport.paths == ["/items/0", "/items/1"])
    }
}
