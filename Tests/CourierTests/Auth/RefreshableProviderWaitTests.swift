import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests that arrive while a refresh is under way wait for it before they are built (the
/// light wait); what they get must be exactly what they got when they waited inside the
/// signing plugin.
@Suite("RefreshableProvider: requests that arrive during a refresh", .timeLimit(.minutes(20)))
struct RefreshableProviderWaitTests {
    static func token(_ name: String, lifetime: TimeInterval = 3600) -> OAuthToken {
        OAuthToken(
            accessToken: name, refreshToken: "r", expiresAt: Date().addingTimeInterval(lifetime), issuedAt: Date())
    }

    /// A session whose refresh, once started (counted in `refreshes`), waits at `gate` until
    /// the test opens it, then runs `outcome`.
    static func session(
        gate: Gate, refreshes: CallCounter, outcome: @escaping @Sendable () throws -> OAuthToken = { token("new") }
    ) -> AuthSession {
        AuthSession(
            store: InMemoryTokenStore(token("old", lifetime: -1)),
            refresh: { _ in
                refreshes.increment()
                try await gate.wait()
                return try outcome()
            },
            // Held by the test: it must not time out on a slow machine (not the claim here).
            refreshTimeout: 3_600)
    }

    /// Starts `count` requests on `executor`, so that the test can wait until every one of
    /// them waits.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    static func results(
        _ count: Int, _ target: @escaping @Sendable (Int) -> HostAPI, provider: Provider<HostAPI>,
        on executor: SerialTaskExecutor
    ) -> [Task<Result<Response, CourierError>, Never>] {
        (0..<count).map { index in
            Task(executorPreference: executor) { () -> Result<Response, CourierError> in
                do throws(CourierError) {
                    return .success(try await provider.request(target(index)))
                } catch {
                    return .failure(error)
                }
            }
        }
    }

    /// Waits until the refresh has started and every request started on `executor` waits
    /// (for the refresh: nothing else holds them).
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    static func untilAllWait(refreshes: CallCounter, executor: SerialTaskExecutor) async throws {
        try await refreshes.wait(forAtLeast: 1)
        try await executor.waitUntilIdle()
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("200 requests behind one refresh all go out with the new token", arguments: 0..<10)
    func allGetTheNewToken(round: Int) async throws {
        let executor = SerialTaskExecutor()
        let gate = Gate()
        let refreshes = CallCounter()
        let transport = ScriptedTransport { _ in .status(200) }
        let provider = RefreshableProvider<HostAPI>(
            auth: Self.session(gate: gate, refreshes: refreshes), transport: transport)
        let tasks = Self.results(200, { .item($0) }, provider: provider, on: executor)
        try await Self.untilAllWait(refreshes: refreshes, executor: executor)
        #expect(transport.requestCount == 0, "every request waits for the refresh")
        gate.open()
        for task in tasks {
            let response = try await task.value.get()
            #expect(response.request?.value(forHTTPHeaderField: "Authorization") == "Bearer new")
        }
        #expect(refreshes.value == 1)
        #expect(transport.requestCount == 200)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("a refresh that fails fails every request that waited for it; no second refresh", arguments: 0..<10)
    func failureReachesEveryWaiter(round: Int) async throws {
        let executor = SerialTaskExecutor()
        let gate = Gate()
        let refreshes = CallCounter()
        let transport = ScriptedTransport { _ in .status(200) }
        let provider = RefreshableProvider<HostAPI>(
            auth: Self.session(gate: gate, refreshes: refreshes) { throw URLError(.timedOut) },
            transport: transport)
        let tasks = Self.results(100, { .item($0) }, provider: provider, on: executor)
        try await Self.untilAllWait(refreshes: refreshes, executor: executor)
        gate.open()
        for task in tasks {
            guard case .failure(.authentication(.refreshFailed)) = await task.value else {
                Issue.record("a request did not fail with refreshFailed: \(await task.value)")
                continue
            }
        }
        #expect(refreshes.value == 1)
        #expect(transport.requestCount == 0)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("a request the signing plugin would not sign (another host) is not failed by a failed refresh")
    func unsignedHostUnaffected() async throws {
        let executor = SerialTaskExecutor()
        let gate = Gate()
        let refreshes = CallCounter()
        let transport = ScriptedTransport { _ in .status(200) }
        // The endpoint sends `.elsewhere`'s request to a host other than its baseURL's: the
        // plugin does not sign it.
        let provider = RefreshableProvider<HostAPI>(
            auth: Self.session(gate: gate, refreshes: refreshes) { throw URLError(.timedOut) },
            endpointClosure: { target in
                let endpoint = Provider<HostAPI>.defaultEndpointMapping(for: target)
                guard case .elsewhere = target else { return endpoint }
                return Endpoint(
                    url: "https://third-party.example.org/other",
                    sampleResponseClosure: { .networkResponse(200, Data()) },
                    method: .get, task: .requestPlain, httpHeaderFields: nil)
            },
            transport: transport)
        let signed = Self.results(10, { .item($0) }, provider: provider, on: executor)
        try await Self.untilAllWait(refreshes: refreshes, executor: executor)
        // Sent while the refresh is held: they wait for it as the signed ones do, and go out
        // unsigned once it has failed.
        let unsigned = Self.results(10, { _ in .elsewhere }, provider: provider, on: executor)
        try await executor.waitUntilIdle()
        gate.open()
        for task in unsigned {
            let response = try await task.value.get()
            #expect(response.statusCode == 200)
            #expect(response.request?.value(forHTTPHeaderField: "Authorization") == nil)
        }
        for task in signed {
            guard case .failure(.authentication(.refreshFailed)) = await task.value else {
                Issue.record("a signed request did not fail with refreshFailed")
                continue
            }
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("a target that is never signed does not wait for the refresh")
    func neverSignedGoesStraightOut() async throws {
        let executor = SerialTaskExecutor()
        let gate = Gate()
        let refreshes = CallCounter()
        let transport = ScriptedTransport { _ in .status(200) }
        let provider = RefreshableProvider<HostAPI>(
            auth: Self.session(gate: gate, refreshes: refreshes), transport: transport)
        let waiting = Self.results(5, { .item($0) }, provider: provider, on: executor)
        try await Self.untilAllWait(refreshes: refreshes, executor: executor)
        let unsignedProvider = RefreshableProvider<PublicAPI>(
            auth: provider.auth, transport: ScriptedTransport { _ in .status(200) })
        // Answered while the signed requests still wait for the held refresh: it did not wait.
        #expect(try await unsignedProvider.request(PublicAPI()).statusCode == 200)
        #expect(transport.requestCount == 0)
        gate.open()
        for task in waiting { #expect(try await task.value.get().statusCode == 200) }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("cancelling requests that wait for a refresh is prompt; the refresh goes on for the others")
    func cancellation() async throws {
        let executor = SerialTaskExecutor()
        let gate = Gate()
        let refreshes = CallCounter()
        let transport = ScriptedTransport { _ in .status(200) }
        let refreshEnded = LockIsolated(false)
        let provider = RefreshableProvider<HostAPI>(
            auth: Self.session(
                gate: gate, refreshes: refreshes,
                outcome: {
                    refreshEnded.setValue(true)
                    return Self.token("new")
                }),
            transport: transport)
        let kept = Self.results(10, { .item($0) }, provider: provider, on: executor)
        let cancelled = Self.results(50, { .item(100 + $0) }, provider: provider, on: executor)
        try await Self.untilAllWait(refreshes: refreshes, executor: executor)
        for task in cancelled { task.cancel() }
        for task in cancelled {
            guard case .failure(.cancelled) = await task.value else {
                Issue.record("a cancelled request did not get .cancelled")
                continue
            }
        }
        // Prompt means: every cancelled request ended while the refresh was still held at the
        // gate, not when it ended. No wall-clock bound, so a loaded machine cannot fail it.
        #expect(!refreshEnded.value)
        gate.open()
        for task in kept { #expect(try await task.value.get().statusCode == 200) }
        #expect(refreshes.value == 1)
        #expect(transport.requestCount == 10)
    }
}

/// A target that is never signed.
struct PublicAPI: TargetType, AccessTokenAuthorizable {
    var baseURL: URL { URL(string: "https://a.example.com")! }
    var path: String { "public" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var authorizationType: AuthorizationType? { nil }
}
