import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``RefreshableProvider`` takes its session from one place, `auth:`: a signing plugin made
/// for another session lends its settings only, and no ``AuthPlugin`` among `plugins:` is
/// installed beside the provider's own.
@Suite("RefreshableProvider's one session")
struct RefreshableProviderSessionTests {
    static func session(_ accessToken: String) -> AuthSession {
        AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: accessToken, refreshToken: "R")),
            refresh: { _ in OAuthToken(accessToken: "\(accessToken)-refreshed", refreshToken: "R") },
            refreshTimeout: testRefreshTimeout)
    }

    /// The `Authorization` header the transport saw.
    static func authorization(of response: Response) -> String? {
        response.request?.value(forHTTPHeaderField: "Authorization")
    }

    @Test("authPlugin made for another session: the provider's auth signs, the plugin's settings stay")
    func mismatchedPluginSignsWithAuth() async throws {
        let a = Self.session("token-a")
        let b = Self.session("token-b")
        let provider = RefreshableProvider<TestAPI>(
            auth: a, authPlugin: AuthPlugin(auth: b, refreshLeeway: 5, allowedHosts: ["API.example.com"]),
            transport: ImmediateTransport())
        let response = try await provider.request(.plain)
        #expect(Self.authorization(of: response) == "Bearer token-a")
        let signing = try #require(provider.plugins.first as? AuthPlugin)
        #expect(signing.auth === a)
        #expect(signing.refreshLeeway == 5)
        #expect(signing.allowedHosts == ["api.example.com"])
    }

    @Test(
        "an AuthPlugin among plugins: lends its settings when authPlugin is nil; only one signing plugin is installed")
    func pluginsAmongPlugins() async throws {
        let a = Self.session("token-a")
        let b = Self.session("token-b")
        let fromPlugins = RefreshableProvider<TestAPI>(
            auth: a, transport: ImmediateTransport(),
            plugins: [AuthPlugin(auth: b, refreshLeeway: 7), AuthPlugin(auth: b, refreshLeeway: 9)])
        let signing = fromPlugins.plugins.compactMap { $0 as? AuthPlugin }
        #expect(signing.count == 1)
        #expect(signing.first?.auth === a)
        #expect(signing.first?.refreshLeeway == 7)
        #expect(Self.authorization(of: try await fromPlugins.request(.plain)) == "Bearer token-a")

        let given = RefreshableProvider<TestAPI>(
            auth: a, authPlugin: AuthPlugin(auth: a, refreshLeeway: 3), transport: ImmediateTransport(),
            plugins: [AuthPlugin(auth: b)])
        let installed = given.plugins.compactMap { $0 as? AuthPlugin }
        #expect(installed.count == 1)
        #expect(installed.first?.refreshLeeway == 3)
        #expect(Self.authorization(of: try await given.request(.plain)) == "Bearer token-a")
    }
}
