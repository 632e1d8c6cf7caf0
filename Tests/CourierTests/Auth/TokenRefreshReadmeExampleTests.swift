import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's "Token refresh" example, kept compiling: same code, with stubs in place of
// the network and a test double for the login screen.

private enum AuthAPI: TargetType, AccessTokenAuthorizable {
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
    var sampleData: Data { Data(#"{"access_token":"new","refresh_token":"r2","expires_in":3600}"#.utf8) }
}

private enum MyAPI: TargetType {
    case profile
    var baseURL: URL { URL(string: "https://api.example.com")! }
    var path: String { "me" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var sampleData: Data { Data(#"{"name":"Ada"}"#.utf8) }
}

private struct Profile: Decodable { let name: String }

@Suite("README: token refresh example")
struct TokenRefreshReadmeExampleTests {
    @Test("the example compiles and signs its requests")
    func example() async throws {
        let tokenFileURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-readme-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: tokenFileURL) }
        let tokenFromLogin = OAuthToken(accessToken: "login", refreshToken: "r1")
        let loginScreens = Counter()
        @Sendable func showLoginScreen() async { loginScreens.increment() }

        let authProvider = Provider<AuthAPI>(stubClosure: Provider.immediatelyStub)
        let session = AuthSession(
            store: FileTokenStore(url: tokenFileURL),
            refresh: { token in
                try OAuthToken(response: await authProvider.request(.refresh(token: token.refreshToken ?? "")))
            })
        let api = RefreshableProvider<MyAPI>(auth: session, stubClosure: Provider.immediatelyStub)

        let listener = Task {
            for await event in session.events where event == .sessionExpired {
                await showLoginScreen()
            }
        }
        defer { listener.cancel() }

        try await session.signIn(tokenFromLogin)
        let profile = try await api.request(.profile, as: Profile.self)
        #expect(profile.name == "Ada")
        #expect(try await api.request(.profile).request?.value(forHTTPHeaderField: "Authorization") == "Bearer login")
        #expect(loginScreens.value == 0)
    }
}
