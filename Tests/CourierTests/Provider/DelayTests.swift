import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every wait Courier schedules takes any number of seconds — negative, NaN, infinite, a
/// `Retry-After` in the year 9999 — without trapping, and a long wait ends at once when the
/// task is cancelled.
@Suite("Delays are clamped", .timeLimit(.minutes(20)))
struct DelayTests {
    @Test(
        "seconds to nanoseconds: none for negative, zero or NaN; capped at 100 years",
        arguments: [
            (-1.0, UInt64(0)), (-.infinity, 0), (.nan, 0), (-.nan, 0), (0, 0), (-0.0, 0),
            (1.5, 1_500_000_000), (0.000_000_001, 1),
            (.infinity, UInt64(Delay.maximumSeconds * 1e9)), (1e300, UInt64(Delay.maximumSeconds * 1e9)),
            (.greatestFiniteMagnitude, UInt64(Delay.maximumSeconds * 1e9)),
            (18_446_744_074, UInt64(Delay.maximumSeconds * 1e9)),
        ] as [(Double, UInt64)])
    func nanoseconds(seconds: Double, expected: UInt64) {
        #expect(Delay.nanoseconds(seconds) == expected)
    }

    /// Runs `body` in a task, cancels it once it waits and returns its result.
    ///
    /// The task runs on a ``SerialTaskExecutor``: once `reached` has returned (an event the
    /// wait comes after, if it is not the task's first) and the executor is idle, the task is
    /// suspended in its wait, or done. The waits cancelled here are 100 years long: a result of
    /// cancellation proves the wait ended because of the cancel (no time bound is asserted; the
    /// suite's time limit catches a wait that does not end). A clamp that went wrong would
    /// trap, or wait no time at all and give a different result.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    private func cancelledWhileWaiting<T: Sendable>(
        after reached: () async throws -> Void = {}, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> Result<T, any Error> {
        let executor = SerialTaskExecutor()
        let task = Task(executorPreference: executor) { try await body() }
        try await reached()
        try await executor.waitUntilIdle()
        task.cancel()
        return await task.result
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("RetryPolicy's default sleep: NaN and negative return at once, infinity waits until cancelled")
    func defaultSleep() async throws {
        // These return (a wrong clamp would sleep ~forever, and the time limit would end it).
        try await RetryPolicy.defaultSleep(.nan)
        try await RetryPolicy.defaultSleep(-5)
        try await RetryPolicy.defaultSleep(-.infinity)
        let result = try await cancelledWhileWaiting { try await RetryPolicy.defaultSleep(.infinity) }
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("a 503 with Retry-After in the year 9999 under maximumRetryAfter: .infinity waits until cancelled")
    func farFutureRetryAfter() async throws {
        let transport = ScriptedTransport()
        transport.always(
            .status(503, headers: ["Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"]), for: .any)
        let provider = Provider<TestAPI>(
            transport: transport, retryPolicy: RetryPolicy(maxRetries: 3, maximumRetryAfter: .infinity))
        let result = try await cancelledWhileWaiting { try await provider.request(.plain) }
        #expect(throws: CourierError.self) { try result.get() }
        if case .failure(let error as CourierError) = result { #expect(error.isCancelled) }
        #expect(transport.requests.count == 1, "nothing was sent again")

        // With the default maximum, the server's answer comes back at once.
        let bounded = Provider<TestAPI>(transport: transport, retryPolicy: RetryPolicy(maxRetries: 3))
        #expect(try await bounded.request(.plain).statusCode == 503)
        #expect(transport.requests.count == 2)
    }

    @Test("infinite backoff settings do not trap: the wait is NaN-free and cancellable")
    func infiniteBackoff() {
        let policy = RetryPolicy(baseDelay: .infinity, maximumDelay: .infinity, random: { 0 })
        let delay = policy.backoff(3)
        #expect(Delay.nanoseconds(delay) == 0 || Delay.nanoseconds(delay) == UInt64(Delay.maximumSeconds * 1e9))
        #expect(Delay.nanoseconds(RetryPolicy(baseDelay: .nan, random: { 0.5 }).backoff(1)) == 0)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("a delayed stub with a NaN or negative delay answers at once; an infinite one waits until cancelled")
    func delayedStubs() async throws {
        let immediate: [Double] = [.nan, -1, -.infinity]
        for seconds in immediate {
            let provider = Provider<TestAPI>(stubClosure: Provider<TestAPI>.delayedStub(seconds))
            #expect(try await provider.request(.plain).statusCode == 200)
        }
        let forever = Provider<TestAPI>(stubClosure: Provider<TestAPI>.delayedStub(Double.infinity))
        let result = try await cancelledWhileWaiting { try await forever.request(.plain) }
        if case .failure(let error as CourierError) = result {
            #expect(error.isCancelled)
        } else {
            Issue.record("an infinitely delayed stub answered: \(result)")
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("ScriptedTransport's delayed reply clamps too")
    func scriptedDelay() async throws {
        let transport = ScriptedTransport()
        transport.enqueue(.delayed(seconds: .nan, .status(204)), .delayed(seconds: .infinity, .status(200)), for: .any)
        let provider = Provider<TestAPI>.scripted(transport)
        #expect(try await provider.request(.plain).statusCode == 204)
        let result = try await cancelledWhileWaiting { try await provider.request(.plain) }
        if case .failure(let error as CourierError) = result {
            #expect(error.isCancelled)
        } else {
            Issue.record("an infinitely delayed reply answered: \(result)")
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("an infinite replay delay waits until cancelled; a NaN one is none")
    func replayDelay() async throws {
        for (delay, answers) in [(Double.nan, true), (.infinity, false)] {
            let transport = ScriptedTransport()
            transport.enqueue(.status(401), .status(200), for: .any)
            let session = AuthSession(
                store: InMemoryTokenStore(OAuthToken(accessToken: "old", refreshToken: "r")),
                refresh: { _ in OAuthToken(accessToken: "new", refreshToken: "r2") }, refreshTimeout: testRefreshTimeout
            )
            let provider = RefreshableProvider<TestAPI>(
                auth: session, refreshPolicy: RefreshPolicy(replayDelay: delay), transport: transport)
            if answers {
                #expect(try await provider.request(.plain).statusCode == 200)
                continue
            }
            // The replay waits once the refresh is over: its event comes after the request was
            // woken, so the executor is idle only once the replay delay has begun.
            let events = session.events
            let result = try await cancelledWhileWaiting(after: {
                for await event in events where event == .refreshed { break }
            }) { try await provider.request(.plain) }
            if case .failure(let error as CourierError) = result {
                #expect(error.isCancelled)
            } else {
                Issue.record("the replay did not wait: \(result)")
            }
            #expect(transport.requests.count == 1)
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("refreshTimeout: NaN counts as the default, infinity never times out, negative at once")
    func refreshTimeouts() async throws {
        #expect(AuthSession(refresh: { $0 }, refreshTimeout: .nan).refreshTimeout == 30)
        let release = AsyncStream.makeStream(of: Void.self)
        for timeout in [-1.0, .infinity] {
            let session = AuthSession(
                store: InMemoryTokenStore(OAuthToken(accessToken: "old", refreshToken: "r")),
                refresh: { _ in
                    for await _ in release.stream { break }
                    return OAuthToken(accessToken: "new", refreshToken: "r2")
                },
                refreshTimeout: timeout)
            if timeout < 0 {
                // Fails at once with the time-out (no cancel: a loaded machine may take a
                // moment to run the timer).
                await #expect {
                    try await session.refresh(rejectingAccessToken: "old")
                } throws: { error in
                    guard case .refreshFailed(let underlying) = error as? AuthenticationError else { return false }
                    return underlying is RefreshTimeout
                }
                continue
            }
            // Idle: the caller waits for the refresh, which waits for `release`.
            let result = try await cancelledWhileWaiting { try await session.refresh(rejectingAccessToken: "old") }
            guard case .failure(AuthenticationError.cancelled) = result else {
                Issue.record("timeout \(timeout): unexpected \(result)")
                continue
            }
        }
        release.continuation.finish()
    }
}
