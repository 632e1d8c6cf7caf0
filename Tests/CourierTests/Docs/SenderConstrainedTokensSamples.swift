// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import Foundation

// The samples of SenderConstrainedTokens.md, kept in sync by DocSamplesSyncTests. They run in
// DPoPSessionSigningTests (a stand-in key) and, against a server that checks the proofs, in
// CourierOpenSSLTests' DPoPSessionTests.

enum SenderConstrainedTokens {  // sample scaffold
    enum AuthAPI: TargetType, AccessTokenAuthorizable {  // sample scaffold
        case exchange(code: String, verifier: String)  // sample scaffold
        case refresh(token: String)  // sample scaffold
        var baseURL: URL { URL(string: "https://auth.example.com")! }  // sample scaffold
        var path: String { "oauth/token" }  // sample scaffold
        var method: HTTPMethod { .post }  // sample scaffold
        var task: RequestTask {  // sample scaffold
            switch self {  // sample scaffold
            case .exchange(let code, let verifier):  // sample scaffold
                .requestParameters(parameters: ["grant_type": "authorization_code", "code": code, "code_verifier": verifier], encoding: URLEncoding.httpBody)  // sample scaffold
            case .refresh(let token):  // sample scaffold
                .requestParameters(parameters: ["grant_type": "refresh_token", "refresh_token": token], encoding: URLEncoding.httpBody)  // sample scaffold
            }  // sample scaffold
        }  // sample scaffold
        var headers: [String: String]? { nil }  // sample scaffold
        var authorizationType: AuthorizationType? { nil }  // sample scaffold
    }  // sample scaffold

    static let authProvider = Provider<AuthAPI>()  // sample scaffold

    static func makeSession(tokenFile: URL, keys: any DPoPKeyFactory) -> AuthSession {
        AuthSession(
            store: FileTokenStore(url: tokenFile),
            refresh: { token in
                // Unchanged: the token request sent from here carries a proof by itself.
                let response = try await authProvider.request(.refresh(token: token.refreshToken ?? ""))
                return try OAuthToken(response: response)
            },
            dpop: keys)
    }

    static func signIn(_ session: AuthSession, code: String, verifier: String) async throws {
        try await session.signIn {
            // An authorization code exchange, a password grant… through a plain Provider.
            let response = try await authProvider.request(.exchange(code: code, verifier: verifier))
            return try OAuthToken(response: response)
        }
    }
}  // sample scaffold
