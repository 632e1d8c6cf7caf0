import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A telemetry that keeps every counter addition, for the tests to wait on.
struct CountingTelemetry: RequestTelemetry {
    struct Addition: Sendable, Equatable {
        let name: String
        let value: Int
        let attributes: [String: TelemetryValue]
    }

    let additions = LockIsolated<[Addition]>([])

    func attemptStarted(_ attempt: TelemetryAttempt) -> any TelemetrySpan { NoSpan() }

    func addToCounter(_ name: String, _ value: Int, attributes: [String: TelemetryValue]) {
        additions.withValue { $0.append(Addition(name: name, value: value, attributes: attributes)) }
    }

    func total(_ name: String) -> Int {
        additions.value.filter { $0.name == name }.reduce(0) { $0 + $1.value }
    }

    /// Returns once `name` reached `total`.
    func wait(for name: String, toReach total: Int) async throws {
        try await additions.wait { $0.filter { $0.name == name }.reduce(0) { $0 + $1.value } >= total }
    }

    private struct NoSpan: TelemetrySpan {
        func end(_ outcome: TelemetryOutcome) {}
    }
}

/// The OpenTelemetry-named counters: the telemetry plugin counts replays, retries and DPoP
/// nonce retries as attempts go out; AuthSessionTelemetry counts a session's renewals and
/// store errors from its public event streams.
@Suite("Telemetry counters: replays, retries, nonce retries, refreshes, store errors", .timeLimit(.minutes(20)))
struct TelemetryCounterTests {
    static func session(
        store: any TokenStore = InMemoryTokenStore(OAuthToken(accessToken: "old", refreshToken: "R")),
        refresh: @escaping @Sendable (OAuthToken) async throws -> OAuthToken = { _ in
            OAuthToken(accessToken: "new", refreshToken: "R2")
        }
    ) -> AuthSession {
        AuthSession(store: store, refresh: refresh, refreshTimeout: testRefreshTimeout)
    }

    @Test("a token replay adds 1 to courier.request.replays, with the request's low-cardinality attributes")
    func replayCounted() async throws {
        let telemetry = CountingTelemetry()
        let session = Self.session()
        let counters = AuthSessionTelemetry(session, telemetry: telemetry)
        let transport = ScriptedTransport(replies: [.status(401), .status(200)])
        let provider = RefreshableProvider<TestAPI>(
            auth: session, transport: transport, plugins: [TelemetryPlugin(telemetry)])
        #expect(try await provider.request(.user(id: 7)).statusCode == 200)

        let replays = telemetry.additions.value.filter { $0.name == TelemetryCounter.replays }
        #expect(replays.count == 1)
        #expect(replays.first?.attributes[TelemetryKey.urlTemplate] == .string("TestAPI.user"))
        #expect(replays.first?.attributes[TelemetryKey.method] == .string("GET"))
        #expect(replays.first?.attributes[TelemetryKey.urlFull] == nil, "no raw URL on a counter")
        #expect(telemetry.total(TelemetryCounter.retries) == 0)
        #expect(telemetry.total(TelemetryCounter.dpopNonceRetries) == 0)

        // The renewal behind it, counted from the session's events.
        try await telemetry.wait(for: TelemetryCounter.refreshes, toReach: 1)
        let refresh = try #require(telemetry.additions.value.first { $0.name == TelemetryCounter.refreshes })
        #expect(refresh.attributes[TelemetryKey.authOutcome] == .string("refreshed"))
        #expect(refresh.attributes[TelemetryKey.authSource] == .string("this_session"))
        counters.cancel()
    }

    @Test("each retry of the RetryPolicy adds 1 to courier.request.retries, and is not a replay")
    func retriesCounted() async throws {
        let telemetry = CountingTelemetry()
        let transport = ScriptedTransport(replies: [.status(503), .status(503), .status(200)])
        let provider = Provider<TestAPI>(
            transport: transport, retryPolicy: RetryPolicy(maxRetries: 2, sleep: { _ in }),
            plugins: [TelemetryPlugin(telemetry)])
        #expect(try await provider.request(.user(id: 1)).statusCode == 200)
        #expect(telemetry.total(TelemetryCounter.retries) == 2)
        #expect(telemetry.total(TelemetryCounter.replays) == 0)
    }

    @Test("a request sent again for a DPoP nonce adds 1 to courier.dpop.nonce_retries, not to replays or retries")
    func nonceRetryCounted() async throws {
        let telemetry = CountingTelemetry()
        let challenge = ScriptedTransport.Reply.status(
            401, headers: ["WWW-Authenticate": #"DPoP error="use_dpop_nonce""#, "DPoP-Nonce": "n-1"])
        let transport = ScriptedTransport(replies: [challenge, .status(200)])
        let provider = RefreshableProvider<DPoPSessionSigningTests.API>(
            auth: try await DPoPSessionSigningTests.session(), transport: transport,
            plugins: [TelemetryPlugin(telemetry)])
        #expect(try await provider.request(DPoPSessionSigningTests.API()).statusCode == 200)
        #expect(transport.requests.count == 2)
        #expect(telemetry.total(TelemetryCounter.dpopNonceRetries) == 1)
        #expect(telemetry.total(TelemetryCounter.replays) == 0)
        #expect(telemetry.total(TelemetryCounter.retries) == 0)
    }

    @Test("a renewed token the store refuses: one store error and one unstored token")
    func unstoredTokenCounted() async throws {
        let telemetry = CountingTelemetry()
        let session = Self.session(store: RefusingStore())
        let counters = AuthSessionTelemetry(
            session, telemetry: telemetry, attributes: ["courier.account": .string("tenant-1")])
        _ = try await session.refresh(rejecting: await session.token)
        try await telemetry.wait(for: TelemetryCounter.unstoredTokens, toReach: 1)
        try await telemetry.wait(for: TelemetryCounter.storeErrors, toReach: 1)
        let error = try #require(telemetry.additions.value.first { $0.name == TelemetryCounter.storeErrors })
        #expect(error.attributes[TelemetryKey.storeOperation] == .string("write"))
        #expect(error.attributes["courier.account"] == .string("tenant-1"))
        counters.cancel()
    }

    @Test("a transient refresh failure and a rejected refresh token are counted with their outcome")
    func failedAndExpiredCounted() async throws {
        let telemetry = CountingTelemetry()
        let answers = LockIsolated<[any Error]>([URLError(.timedOut), AuthenticationError.sessionExpired])
        let session = Self.session(refresh: { _ in
            throw answers.withValue { $0.removeFirst() }
        })
        let counters = AuthSessionTelemetry(session, telemetry: telemetry)
        _ = try? await session.refresh(rejecting: await session.token)
        _ = try? await session.refresh(rejecting: await session.token)
        try await telemetry.wait(for: TelemetryCounter.refreshes, toReach: 2)
        let outcomes = telemetry.additions.value.filter { $0.name == TelemetryCounter.refreshes }.map {
            $0.attributes[TelemetryKey.authOutcome]
        }
        #expect(outcomes == [.string("failed"), .string("session_expired")])
        counters.cancel()
    }
}

/// A store holding a token whose every write fails, as a full disk does.
private final class RefusingStore: TokenStore {
    struct DiskFull: Error {}

    func load() throws -> OAuthToken? { OAuthToken(accessToken: "old", refreshToken: "R") }
    func save(_ token: OAuthToken?) throws { throw DiskFull() }
}
