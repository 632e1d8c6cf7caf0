import Courier
import Foundation

/// The test server's token endpoint (`POST /oauth/token`, form-encoded, RFC 6749), written
/// once for everything that signs in or refreshes against `Tests/Server/server.py`: the
/// integration tests, the soak, the benchmarks and the RefreshDemo example.
///
/// Call it through a plain `Provider`, never through the refreshable one it feeds, and it is
/// never signed (``authorizationType`` is `nil`), as an app's token endpoint would be:
///
/// ```swift
/// let tokens = Provider<TokenEndpoint>()
/// let session = AuthSession(refresh: { token in
///     try OAuthToken(response: await tokens.request(
///         TokenEndpoint(base: server.baseURL, grant: .refresh(token.refreshToken ?? ""))))
/// })
/// ```
public struct TokenEndpoint: TargetType, AccessTokenAuthorizable, Sendable {
    /// The grant the request asks for.
    public enum Grant: Sendable {
        /// The resource owner password grant.
        case password(username: String, password: String)
        /// The refresh grant, with the refresh token the last answer carried.
        case refresh(String)
        /// The client credentials grant.
        case clientCredentials
    }

    /// The server's base URL, such as `TestServer.baseURL`.
    public let base: URL
    /// The grant asked for.
    public let grant: Grant

    /// Creates a request for `grant` to the server at `base`.
    public init(base: URL, grant: Grant) {
        self.base = base
        self.grant = grant
    }

    /// `base`.
    public var baseURL: URL { base }
    /// `oauth/token`.
    public var path: String { "oauth/token" }
    /// `POST`.
    public var method: HTTPMethod { .post }
    /// The grant's form parameters in the body.
    public var task: RequestTask {
        let parameters: [String: String] =
            switch grant {
            case .password(let username, let password):
                ["grant_type": "password", "username": username, "password": password]
            case .refresh(let refreshToken):
                ["grant_type": "refresh_token", "refresh_token": refreshToken]
            case .clientCredentials:
                ["grant_type": "client_credentials"]
            }
        return .requestParameters(parameters: parameters, encoding: URLEncoding.httpBody)
    }
    /// None.
    public var headers: [String: String]? { nil }
    /// `nil`: the token endpoint is never signed with the access token.
    public var authorizationType: AuthorizationType? { nil }
}
