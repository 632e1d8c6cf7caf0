import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session whose process was stopped while it held the lease, past its expiry, must not
/// send its refresh token once it wakes up: the provider checks the lease immediately before
/// the refresh request leaves, and the session adopts the token the session that took the
/// lease over stored. (The same with real processes stopped and continued is in the
/// integration tests.)
@Suite("A refresh whose lease was lost", .timeLimit(.minutes(20)))
struct LostLeaseTests {
    /// A coordinator in memory whose leases the test can declare lost, as if another process
    /// had taken each over after it expired.
    final class LosableCoordinator: TokenStoreCoordinator {
        let base: InProcessTokenCoordinator
        /// Bumped when another process takes over: every lease taken before is lost.
        let takeovers = LockIsolated(0)

        init(store: any TokenStore) {
            base = InProcessTokenCoordinator(store: store)
        }

        nonisolated(nonsending) func currentGeneration() async throws -> UInt64? {
            try await base.currentGeneration()
        }
        nonisolated(nonsending) func read() async throws -> StoredToken { try await base.read() }
        nonisolated(nonsending) func write(_ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?)
            async throws -> UInt64?
        {
            try await base.write(token, change: change, ifGeneration: expected)
        }

        func acquireLease(expiringAfter duration: TimeInterval, waitingAtMost timeout: TimeInterval) async throws
            -> any TokenLease
        {
            let lease = try await base.acquireLease(expiringAfter: duration, waitingAtMost: timeout)
            return Lease(base: lease, takeovers: takeovers, taken: takeovers.value)
        }

        struct Lease: TokenLease {
            let base: any TokenLease
            let takeovers: LockIsolated<Int>
            let taken: Int
            nonisolated(nonsending) func release() async { await base.release() }
            nonisolated(nonsending) func isHeld() async -> Bool {
                guard takeovers.value == taken else { return false }
                return await base.isHeld()
            }
        }
    }

    struct TokenRoute: TargetType {
        let refreshToken: String
        var baseURL: URL { URL(string: "https://auth.example.com")! }
        var path: String { "token" }
        var method: HTTPMethod { .post }
        var task: RequestTask {
            .requestParameters(parameters: ["refresh_token": refreshToken], encoding: URLEncoding.httpBody)
        }
        var headers: [String: String]? { nil }
    }

    @Test(
        "a refresh that lost its lease while stopped never sends its refresh token, and adopts the newer token — 20 rounds"
    )
    func neverSent() async throws {
        for round in 0..<20 {
            let memory = FullableTokenStore(RotatingTokenServer.initialToken())
            let coordinator = LosableCoordinator(store: memory)
            let store = CoordinatedTokenStore(memory, coordinator: coordinator)
            let sent = LockIsolated<[String]>([])
            let provider = Provider<TokenRoute>(
                transport: ClosureTransport { request in
                    sent.withValue { $0.append(String(decoding: request.urlRequest.httpBody ?? Data(), as: UTF8.self)) }
                    let body = #"{"access_token":"A1","refresh_token":"R1","token_type":"Bearer","expires_in":3600}"#
                    return Response(statusCode: 200, data: Data(body.utf8), request: request.urlRequest)
                })
            let frozen = Gate()
            let session = AuthSession(
                store: store,
                refresh: { token in
                    // Stopped here, holding the lease, while another process takes it over.
                    try await frozen.wait()
                    let response = try await provider.request(TokenRoute(refreshToken: token.refreshToken ?? ""))
                    return try OAuthToken(tokenResponse: response.data, receivedAt: Date())
                }, refreshTimeout: testRefreshTimeout)
            let request = Task { try await session.validToken() }
            try await frozen.waitForWaiting(1)
            // The other process took the expired lease over, refreshed and stored its token.
            coordinator.takeovers.withValue { $0 += 1 }
            let newer = OAuthToken(
                accessToken: "A9", refreshToken: "R9", expiresAt: Date().addingTimeInterval(3600), issuedAt: Date())
            _ = try await coordinator.write(newer, change: .refreshed, ifGeneration: nil)
            frozen.open()
            #expect(try await request.value.accessToken == "A9", "round \(round)")
            #expect(sent.value.isEmpty, "round \(round): \(sent.value)")
        }
    }

    @Test(
        "the provider refuses to send from a refresh whose lease is lost, with a typed error; outside a refresh it sends"
    )
    func providerCheck() async throws {
        let sent = CallCounter()
        let provider = Provider<TokenRoute>(
            transport: ClosureTransport { request in
                _ = sent.increment()
                return Response(statusCode: 200, data: Data(), request: request.urlRequest)
            })
        _ = try await provider.request(TokenRoute(refreshToken: "R0"))
        #expect(sent.value == 1)
        #expect(TokenLeaseLost().description.contains("not sent"))
    }
}
