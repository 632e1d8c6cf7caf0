import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("trackInflights: identical requests in flight share one call", .timeLimit(.minutes(2)))
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

    /// Starts `count` requests for `target` and waits until all of them wait for the call.
    func start(_ count: Int, _ target: TestAPI, on provider: Provider<TestAPI>) async -> [Task<
        Result<Response, CourierError>, Never
    >] {
        let tasks = (0..<count).map { _ in
            Task { () -> Result<Response, CourierError> in
                do throws(CourierError) {
                    return .success(try await provider.request(target))
                } catch {
                    return .failure(error)
                }
            }
        }
        #expect(await eventually { provider.inflights?.waiterCount == count })
        return tasks
    }

    @Test("many identical requests at once: one network call, every caller gets the answer", arguments: 0..<20)
    func shared(round: Int) async throws {
        let provider = provider()
        let tasks = await start(25, .user(id: 7), on: provider)

        transport.open()
        var bodies: [String] = []
        for task in tasks {
            bodies.append(try await task.value.get().mapString())
        }

        #expect(transport.requests.count == 1)
        #expect(bodies == Array(repeating: "/v1/users/7", count: 25))
        #expect(log.all.filter { $0 == "p.willSend" }.count == 1)
        #expect(provider.inflights?.count == 0)
    }

    @Test("different endpoints are not shared, and a finished call is not reused")
    func distinct() async throws {
        let provider = provider()
        let tasks = await start(1, .user(id: 1), on: provider) + start(1, .user(id: 2), on: provider)
        #expect(await eventually { transport.requests.count == 2 })
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
        #expect(await eventually { transport.requests.count == 5 })
        transport.open()
        for task in tasks { _ = try await task.value }
    }

    @Test("a cancelled caller gets .cancelled at once; the others still get the answer", arguments: 0..<10)
    func cancelledCaller(round: Int) async throws {
        let provider = provider()
        let tasks = await start(4, .user(id: 7), on: provider)

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

    @Test("when every caller cancels, the call is cancelled and the next request goes out afresh")
    func everyCallerCancels() async throws {
        let provider = provider()
        let tasks = await start(3, .user(id: 7), on: provider)
        #expect(await eventually { transport.requests.count == 1 })

        for task in tasks { task.cancel() }
        for task in tasks { #expect(await task.value.failureIsCancelled) }

        #expect(await eventually { transport.cancelledCount == 1 })
        #expect(provider.inflights?.count == 0)
        transport.open()
        #expect(try await provider.request(.user(id: 7)).statusCode == 200)
        #expect(transport.requests.count == 2)
    }

    @Test("a task cancelled before it asks never waits and leaves nothing behind")
    func cancelledBeforeJoining() async {
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
        #expect(provider.inflights?.count == 0)
        #expect(transport.requests.isEmpty)
    }

    @Test("completion handlers share the call; cancelling one Cancellable leaves the others")
    func completionForm() async throws {
        let provider = provider()
        let results = Collected()
        let handles = (0..<3).map { index in
            provider.request(.user(id: 7), callbackQueue: .global()) { result in results.add(index, result) }
        }
        #expect(await eventually { provider.inflights?.waiterCount == 3 })

        handles[0].cancel()
        #expect(await eventually { results.count == 1 })
        transport.open()
        #expect(await eventually { results.count == 3 })

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
        let session = AuthSession(refresh: { _ in throw CancellationError() })
        #expect(RefreshableProvider<TestAPI>(auth: session, trackInflights: true).trackInflights)
        #expect(!RefreshableProvider<TestAPI>(auth: session).trackInflights)
    }
}

/// Completion results by caller index.
final class Collected: Sendable {
    private let results = LockIsolated<[Int: Result<Response, CourierError>]>([:])

    func add(_ index: Int, _ result: Result<Response, CourierError>) {
        results.withValue { $0[index] = result }
    }

    var count: Int { results.value.count }

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
