import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(
    "maxRequestsPerHost with a refresh: requests queued at the gate go out with the new token", .timeLimit(.minutes(20))
)
struct HostGateRefreshTests {
    static func token(_ name: String) -> OAuthToken {
        OAuthToken(
            accessToken: name, refreshToken: "r", expiresAt: Date().addingTimeInterval(3600), issuedAt: Date())
    }

    @Test(
        "a storm of 200 with a token the server has just rejected: one refresh, at most `limit` requests leave with it",
        arguments: 0..<20)
    func storm(round: Int) async throws {
        let limit = 1 + round % 4
        let server = TokenCheckingServer(valid: "new")
        let refreshes = CallCounter()
        let started = CallCounter()
        let session = AuthSession(
            store: InMemoryTokenStore(Self.token("old")),
            refresh: { _ in
                refreshes.increment()
                // Held until every request of the storm has been made: they all arrive while
                // the refresh is in flight.
                try await started.wait(forAtLeast: 200)
                return Self.token("new")
            },
            // Held by the test: it must not time out on a slow machine (not the claim here).
            refreshTimeout: 3_600)
        let probe = SlotProbe()
        let provider = RefreshableProvider<HostAPI>(
            auth: session, transport: server.transport, plugins: [probe], maxRequestsPerHost: limit)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    started.increment()
                    return try await provider.request(.item(index)).statusCode
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 200))
        #expect(refreshes.value == 1)
        // A call that was rejected keeps its slot through the refresh and its replay, so no
        // request is signed with the old token after the first ones.
        #expect(server.rejected >= 1)
        #expect(server.rejected <= limit)
        #expect(server.maxInFlight <= limit)
        // Every slot came back, through the refreshes and replays: `limit` new requests hold
        // one at once.
        try await probe.expectFreeSlots(limit) { _ = try await provider.request(.item(1_000 + $0)) }
    }

    @Test(
        "a limit of 1 with trackInflights and replays: identical requests finish, nothing deadlocks", arguments: 0..<10)
    func limitOneWithSharedCalls(round: Int) async throws {
        let server = TokenCheckingServer(valid: "new")
        let refreshes = CallCounter()
        let session = AuthSession(
            store: InMemoryTokenStore(Self.token("old")),
            refresh: { _ in
                refreshes.increment()
                return Self.token("new")
            }, refreshTimeout: testRefreshTimeout)
        let provider = RefreshableProvider<HostAPI>(
            auth: session, transport: server.transport, trackInflights: true, maxRequestsPerHost: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let status = try await provider.request(.item(index % 3)).statusCode
                    #expect(status == 200)
                }
            }
            try await group.waitForAll()
        }
        #expect(refreshes.value == 1)
        #expect(server.maxInFlight == 1)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("a shared call whose first caller cancelled retries under that caller's slot, not behind its own joiners")
    func sharedCallOutlivesItsCaller() async throws {
        let executor = SerialTaskExecutor()
        let transport = SlotCountingTransport(failFirstAttempts: true)
        let session = AuthSession(
            store: InMemoryTokenStore(Self.token("new")), refresh: { _ in Self.token("new") },
            refreshTimeout: testRefreshTimeout)
        let provider = RefreshableProvider<HostAPI>(
            auth: session, transport: transport,
            retryPolicy: RetryPolicy(maxRetries: 1, random: { 0 }, sleep: { _ in }),
            trackInflights: true, maxRequestsPerHost: 2)
        // The first caller starts the shared call, the second joins it; both hold a slot. (The
        // call itself runs in a task of its own, so the transport says when it has arrived.)
        let first = Task(executorPreference: executor) { try await provider.request(.item(1)) }
        try await transport.waitForInFlight(1)
        try await executor.waitUntilIdle()
        let second = Task(executorPreference: executor) { try await provider.request(.item(1)) }
        try await executor.waitUntilIdle()
        // Both slots are held: the third waits for one.
        let third = Task(executorPreference: executor) { try await provider.request(.item(1)) }
        try await executor.waitUntilIdle()
        // The first caller leaves; its slot goes to the third, which joins the shared call.
        first.cancel()
        await #expect(throws: CourierError.self) { try await first.value }
        try await executor.waitUntilIdle()
        #expect(transport.inFlight == 1, "the shared call is still the only one")
        // The shared call's first attempt is answered 503; its retry must not wait for a
        // slot while both slots are held by callers waiting for this very call.
        transport.open()
        #expect(try await second.value.statusCode == 200)
        #expect(try await third.value.statusCode == 200)
        #expect(transport.paths == ["/items/1", "/items/1"])
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("cancelling calls queued behind a slot's holder that waits for its refresh is prompt")
    func cancelWhileHolderRefreshes() async throws {
        let executor = SerialTaskExecutor()
        let server = TokenCheckingServer(valid: "new")
        let gate = Gate()
        let refreshEnded = LockIsolated(false)
        let session = AuthSession(
            store: InMemoryTokenStore(Self.token("old")),
            refresh: { _ in
                // Held until the test opens the gate: the holder keeps its slot.
                try await gate.wait()
                refreshEnded.setValue(true)
                return Self.token("new")
            },
            // Held by the test: it must not time out on a slow machine (not the claim here).
            refreshTimeout: 3_600)
        let provider = RefreshableProvider<HostAPI>(
            auth: session, transport: server.transport, maxRequestsPerHost: 1)
        let holder = Task(executorPreference: executor) { try await provider.request(.item(0)) }
        // Started together with the holder: some wait at the gate, the later ones (once the
        // refresh is under way) before they are built; both places answer a cancellation.
        let waiters = (1...20).map { index in
            Task(executorPreference: executor) { () -> Result<Response, CourierError> in
                do throws(CourierError) {
                    return .success(try await provider.request(.item(index)))
                } catch {
                    return .failure(error)
                }
            }
        }
        // The holder was rejected and its refresh is held; every other request waits.
        try await gate.waitForWaiting(1)
        try await executor.waitUntilIdle()
        #expect(server.rejected == 1)
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters {
            guard case .failure(.cancelled) = await waiter.value else {
                Issue.record("a cancelled waiter did not get .cancelled")
                continue
            }
        }
        // Prompt means: every cancelled call ended while the refresh (and so the slot) was still
        // held, not when it ended. No wall-clock bound, so a loaded machine cannot fail it.
        #expect(!refreshEnded.value)
        gate.open()
        #expect(try await holder.value.statusCode == 200)
        #expect(server.requestCount == 2)
    }
}

/// A server that accepts one access token: anything else is answered 401. Counts the
/// rejections and the requests inside it at once.
final class TokenCheckingServer: Sendable {
    private struct State {
        var inFlight = 0
        var maxInFlight = 0
        var rejected = 0
        var requests = 0
    }

    private let state = LockIsolated(State())
    let valid: String

    init(valid: String) {
        self.valid = valid
    }

    var rejected: Int { state.value.rejected }
    var maxInFlight: Int { state.value.maxInFlight }
    var requestCount: Int { state.value.requests }

    var transport: ClosureTransport {
        ClosureTransport { [self] request in
            let accepted = request.urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer \(valid)"
            state.withValue {
                $0.inFlight += 1
                $0.requests += 1
                $0.maxInFlight = max($0.maxInFlight, $0.inFlight)
                if !accepted { $0.rejected += 1 }
            }
            defer { state.withValue { $0.inFlight -= 1 } }
            // Lets other requests run while this one is inside, so overlaps would show.
            await Task.yield()
            return Response(statusCode: accepted ? 200 : 401, data: Data(), request: request.urlRequest)
        }
    }
}
