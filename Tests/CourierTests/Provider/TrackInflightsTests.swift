import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A caller waiting for a shared call sends no signal of its own: the callers are started on a
/// ``SerialTaskExecutor``, which is idle once every one of them waits.
@Suite("trackInflights: identical requests in flight share one call", .timeLimit(.minutes(20)))
struct TrackInflightsTests {
    /// Holds every call until the test opens it; answers 200 with the request's path.
    let transport = GatedTransport(
        answering: ClosureTransport { request in
            Response(
                statusCode: 200, data: Data((request.urlRequest.url?.path ?? "").utf8), request: request.urlRequest)
        })
    let log = HookLog()

    func provider(trackInflights: Bool = true) -> Provider<TestAPI> {
        Provider(
            transport: transport, plugins: [RecordingPlugin(name: "p", log: log)], trackInflights: trackInflights)
    }

    /// Starts `count` requests for `target` and waits until all of them wait for the call
    /// (they run on an executor of their own, which is idle once they all wait).
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    func start(_ count: Int, _ target: TestAPI, on provider: Provider<TestAPI>) async throws -> [Task<
        Result<Response, CourierError>, Never
    >] {
        let executor = SerialTaskExecutor()
        let tasks = (0..<count).map { _ in
            Task(executorPreference: executor) { () -> Result<Response, CourierError> in
                do throws(CourierError) {
                    return .success(try await provider.request(target))
                } catch {
                    return .failure(error)
                }
            }
        }
        try await executor.waitUntilIdle()
        return tasks
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("many identical requests at once: one network call, every caller gets the answer", arguments: 0..<20)
    func shared(round: Int) async throws {
        let provider = provider()
        let tasks = try await start(25, .user(id: 7), on: provider)

        transport.open()
        var bodies: [String] = []
        for task in tasks {
            bodies.append(try await task.value.get().mapString())
        }

        #expect(transport.requests.count == 1)
        #expect(bodies == Array(repeating: "/v1/users/7", count: 25))
        #expect(log.all.filter { $0 == "p.willSend" }.count == 1)
        // Nothing is left behind: the next identical request goes out afresh.
        _ = try await provider.request(.user(id: 7))
        #expect(transport.requests.count == 2)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("different endpoints are not shared, and a finished call is not reused")
    func distinct() async throws {
        let provider = provider()
        let tasks = try await start(1, .user(id: 1), on: provider) + start(1, .user(id: 2), on: provider)
        try await transport.waitForRequests(2)
        transport.open()
        for task in tasks { _ = try await task.value.get() }

        _ = try await provider.request(.user(id: 1))

        #expect(transport.requests.count == 3)
    }

    @Test("without trackInflights (the default) every request goes out")
    func offByDefault() async throws {
        let provider = Provider<TestAPI>(transport: transport)
        #expect(!provider.trackInflights)
        let tasks = (0..<5).map { _ in Task { try await provider.request(.user(id: 7)) } }
        try await transport.waitForWaitingRequests(5)
        transport.open()
        for task in tasks { _ = try await task.value }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("a cancelled caller gets .cancelled at once; the others still get the answer", arguments: 0..<10)
    func cancelledCaller(round: Int) async throws {
        let provider = provider()
        let tasks = try await start(4, .user(id: 7), on: provider)

        tasks[round % 4].cancel()
        // The shared call is held at the gate until it opens below: a caller that waited for
        // it would never come back (the suite's time limit would fail the test).
        let cancelled = await tasks[round % 4].value
        #expect(cancelled.failureIsCancelled)
        #expect(transport.cancelledCount == 0)

        transport.open()
        for (index, task) in tasks.enumerated() where index != round % 4 {
            #expect(try await task.value.get().statusCode == 200)
        }
        #expect(transport.requests.count == 1)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("when every caller cancels, the call is cancelled and the next request goes out afresh")
    func everyCallerCancels() async throws {
        let provider = provider()
        let tasks = try await start(3, .user(id: 7), on: provider)
        try await transport.waitForRequests(1)

        for task in tasks { task.cancel() }
        for task in tasks { #expect(await task.value.failureIsCancelled) }

        // The last caller to leave cancels the call, which is then cancelled at the gate.
        try await transport.waitForCancellations(1)
        #expect(transport.cancelledCount == 1)
        transport.open()
        #expect(try await provider.request(.user(id: 7)).statusCode == 200)
        #expect(transport.requests.count == 2)
    }

    @Test("a task cancelled before it asks never waits and leaves nothing behind")
    func cancelledBeforeJoining() async throws {
        let provider = provider()
        let task = Task { () -> Result<Response, CourierError> in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(CourierError) {
                return .success(try await provider.request(.user(id: 7)))
            } catch {
                return .failure(error)
            }
        }
        #expect(await task.value.failureIsCancelled)
        #expect(transport.requests.isEmpty)
        // Nothing is left behind: the next identical request goes out and is answered.
        transport.open()
        #expect(try await provider.request(.user(id: 7)).statusCode == 200)
        #expect(transport.requests.count == 1)
    }

    @Test("completion handlers share the call; cancelling one Cancellable leaves the others")
    func completionForm() async throws {
        // The completion form runs `request(_:)` in a task of its own: the subclass runs it on
        // the executor, so the test knows when all three callers wait.
        let executor = SerialTaskExecutor()
        let provider = ExecutorBoundProvider(
            executor: executor, transport: transport, plugins: [RecordingPlugin(name: "p", log: log)],
            trackInflights: true)
        let results = Collected()
        let handles = (0..<3).map { index in
            provider.request(.user(id: 7), callbackQueue: .global()) { result in results.add(index, result) }
        }
        try await provider.started.wait(forAtLeast: 3)
        try await executor.waitUntilIdle()

        handles[0].cancel()
        try await results.wait(forCount: 1)
        transport.open()
        try await results.wait(forCount: 3)

        #expect(results.result(0)?.failureIsCancelled == true)
        #expect(try results.result(1)?.get().statusCode == 200)
        #expect(try results.result(2)?.get().statusCode == 200)
        #expect(transport.requests.count == 1)
    }

    @Test("downloads are never shared: their destinations may differ")
    func downloads() {
        let download = Endpoint(
            url: "https://example.com/f", sampleResponseClosure: { .networkResponse(200, Data()) }, method: .get,
            task: .downloadDestination { _, _ in (URL(fileURLWithPath: "/tmp/x"), []) }, httpHeaderFields: nil)
        #expect(!download.identity.isShareable)
        #expect(Provider.defaultEndpointMapping(for: TestAPI.plain).identity.isShareable)
    }

    @Test("RefreshableProvider passes trackInflights through")
    func refreshable() {
        let session = AuthSession(refresh: { _ in throw CancellationError() }, refreshTimeout: testRefreshTimeout)
        #expect(RefreshableProvider<TestAPI>(auth: session, trackInflights: true).trackInflights)
        #expect(!RefreshableProvider<TestAPI>(auth: session).trackInflights)
    }
}

/// A provider whose `request(_:)` runs on `executor`, whichever task calls it (the
/// completion-handler form calls it from a task of its own). Counts the calls in `started`,
/// on the executor.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class ExecutorBoundProvider: Provider<TestAPI>, @unchecked Sendable {  // only `let`s
    let executor: SerialTaskExecutor
    let started = CallCounter()

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    init(executor: SerialTaskExecutor, transport: any HTTPTransport, plugins: [any PluginType], trackInflights: Bool) {
        self.executor = executor
        super.init(transport: transport, plugins: plugins, trackInflights: trackInflights)
    }

    nonisolated(nonsending) override func request(_ target: TestAPI) async throws(CourierError) -> Response {
        try await withTaskExecutorPreference(executor) { () async throws(CourierError) -> Response in
            // Counted on the executor: once the count is reached, idle means every call waits.
            started.increment()
            return try await super.request(target)
        }
    }
}

/// Completion results by caller index.
final class Collected: Sendable {
    private let results = LockIsolated<[Int: Result<Response, CourierError>]>([:])

    func add(_ index: Int, _ result: Result<Response, CourierError>) {
        results.withValue { $0[index] = result }
    }

    var count: Int { results.value.count }

    /// Waits until at least `count` results have come.
    func wait(forCount count: Int) async throws {
        try await results.wait { $0.count >= count }
    }

    func result(_ index: Int) -> Result<Response, CourierError>? {
        results.value[index]
    }
}

extension Result where Failure == CourierError {
    var failureIsCancelled: Bool {
        if case .failure(.cancelled) = self { return true }
        return false
    }
}
