import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A target signed by `AuthPlugin`, with a settable authorization type.
struct SignedTarget: TargetType, AccessTokenAuthorizable {
    var authorizationType: AuthorizationType? = .bearer
    var baseURL: URL { URL(string: "https://api.example.com")! }
    var path: String { "me" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

@Suite("AuthPlugin")
struct AuthPluginTests {
    let session = AuthSession(
        store: InMemoryTokenStore(OAuthToken(accessToken: "tok", refreshToken: "r", tokenType: "MAC")),
        refresh: { $0 }, refreshTimeout: testRefreshTimeout)

    func prepared(_ target: SignedTarget, url: String = "https://api.example.com/me", plugin: AuthPlugin? = nil)
        async throws -> URLRequest
    {
        var request = URLRequest(url: URL(string: url)!)
        request.setValue("Bearer stale", forHTTPHeaderField: "Authorization")
        return try await (plugin ?? AuthPlugin(auth: session)).prepare(request, target: target)
    }

    @Test("the header is replaced, never appended, with the token's own type for .bearer")
    func replacesHeader() async throws {
        let request = try await prepared(SignedTarget())
        #expect(request.value(forHTTPHeaderField: "Authorization") == "MAC tok")
        #expect(request.allHTTPHeaderFields?.filter { $0.key.lowercased() == "authorization" }.count == 1)
    }

    @Test("basic and custom schemes are the target's")
    func schemes() async throws {
        #expect(
            try await prepared(SignedTarget(authorizationType: .basic)).value(forHTTPHeaderField: "Authorization")
                == "Basic tok")
        #expect(
            try await prepared(SignedTarget(authorizationType: .custom("Token"))).value(
                forHTTPHeaderField: "Authorization")
                == "Token tok")
    }

    @Test("a nil authorization type leaves the request as it is")
    func unsigned() async throws {
        let request = try await prepared(SignedTarget(authorizationType: nil))
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer stale")
    }

    @Test("by default only the target's own host gets the token; allowedHosts widens it")
    func hostScoping() async throws {
        let elsewhere = try await prepared(SignedTarget(), url: "https://cdn.example.net/me")
        #expect(elsewhere.value(forHTTPHeaderField: "Authorization") == "Bearer stale", "not signed")
        let allowed = try await prepared(
            SignedTarget(), url: "https://CDN.example.net/me",
            plugin: AuthPlugin(auth: session, allowedHosts: ["cdn.example.net"]))
        #expect(allowed.value(forHTTPHeaderField: "Authorization") == "MAC tok")
    }

    @Test("no token: the request fails with missingCredential and the transport is never called")
    func noToken() async {
        let transport = ScriptedTransport()
        let provider = Provider<SignedTarget>(
            transport: transport,
            plugins: [AuthPlugin(auth: AuthSession(refresh: { $0 }, refreshTimeout: testRefreshTimeout))])
        await #expect {
            try await provider.request(SignedTarget())
        } throws: { error in
            if case .authentication(.missingCredential) = error as? CourierError { return true }
            return false
        }
        #expect(transport.requestCount == 0)
    }
}
