import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Network retries and token replays count separately in a RefreshableProvider.
@Suite("Retries and token replays")
struct RetryAndReplayTests {
    private struct Target: TargetType {
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "items" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    @Test("503, 503, 401, 200: two retries spend the retry budget, the 401 still gets its replay")
    func separateCounters() async throws {
        let transport = ScriptedTransport(replies: [.status(503), .status(503), .status(401), .status(200)])
        let refreshes = CallCounter()
        let session = AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: "old", refreshToken: "r")),
            refresh: { _ in
                refreshes.increment()
                return OAuthToken(accessToken: "new", refreshToken: "r2")
            }, refreshTimeout: testRefreshTimeout)
        let provider = RefreshableProvider<Target>(
            auth: session, transport: transport,
            retryPolicy: RetryPolicy(maxRetries: 2, random: { 0 }, sleep: { _ in }))
        let response = try await provider.request(Target())
        #expect(response.statusCode == 200)
        #expect(transport.requestCount == 4)
        #expect(refreshes.value == 1)
        #expect(response.request?.value(forHTTPHeaderField: "Authorization") == "Bearer new")
    }
}
