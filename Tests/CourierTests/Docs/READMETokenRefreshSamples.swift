// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's "Token refresh" and "Retries" samples, kept in sync by DocSamplesSyncTests.
// Compiled, not run: they talk to example hosts. The refresh flow itself is exercised
// against the local server by the integration tests.

enum READMETokenRefresh {  // sample scaffold
    enum MyAPI: TargetType {
        case profile
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "me" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    struct Profile: Decodable { let name: String }

    static func showLoginScreen() async {}



    enum AuthAPI: TargetType, AccessTokenAuthorizable {
        case refresh(token: String)
        var baseURL: URL { URL(string: "https://auth.example.com")! }
        var path: String { "oauth/token" }
        var method: HTTPMethod { .post }
        var task: RequestTask {
            switch self {
            case .refresh(let token):
                .requestParameters(
                    parameters: ["grant_type": "refresh_token", "refresh_token": token],
                    encoding: URLEncoding.httpBody)
            }
        }
        var headers: [String: String]? { nil }
        var authorizationType: AuthorizationType? { nil }  // the token endpoint is never signed
    }

    static func example(tokenFileURL: URL, tokenFromLogin: OAuthToken) async throws {  // sample scaffold

        let authProvider = Provider<AuthAPI>()  // a plain provider: refreshing never recurses
        let session = AuthSession(
            store: FileTokenStore(url: tokenFileURL),  // KeychainTokenStore on Apple platforms
            refresh: { token in
                guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
                return try OAuthToken(response: await authProvider.request(.refresh(token: refreshToken)))
            })
        let api = RefreshableProvider<MyAPI>(auth: session)

        Task {
            for await event in session.events where event == .sessionExpired {
                await showLoginScreen()  // the refresh token is dead: the user must sign in again
            }
        }

        try await session.signIn(tokenFromLogin)
        let profile = try await api.request(.profile, as: Profile.self)
        _ = profile  // sample scaffold
    }  // sample scaffold

    static func retries() {  // sample scaffold
        typealias GitHub = README.GitHub  // sample scaffold
        let provider = Provider<GitHub>(retryPolicy: RetryPolicy(maxRetries: 3, baseDelay: 0.5, maximumDelay: 30))
        _ = provider  // sample scaffold
    }  // sample scaffold
}  // sample scaffold

@Suite("README: token refresh and retries samples")
struct READMETokenRefreshSamples {
    @Test("the samples' types behave as the README says: the token endpoint is never signed, the API is")
    func types() async throws {
        let transport = ScriptedTransport()
        transport.always(.status(200), for: .any)
        let session = AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: "t", refreshToken: "r", tokenType: "Bearer")),
            refresh: { $0 })
        _ = try await RefreshableProvider<READMETokenRefresh.AuthAPI>(auth: session, transport: transport)
            .request(.refresh(token: "r"))
        _ = try await RefreshableProvider<READMETokenRefresh.MyAPI>(auth: session, transport: transport)
            .request(.profile)
        #expect(transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [nil, "Bearer t"])
        let policy = RetryPolicy(maxRetries: 3, baseDelay: 0.5, maximumDelay: 30)
        #expect(policy.maxRetries == 3)
    }
}
