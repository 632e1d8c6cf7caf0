import Courier
import Foundation

/// The demo app's API on the local test server: protected routes signed with the token.
struct DemoAPI: TargetType {
    let baseURL: URL
    let path: String
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { ["Accept": "application/json"] }
}

/// The token endpoint, called through a plain `Provider` — never the refreshable one — and
/// never signed.
enum AuthAPI: TargetType, AccessTokenAuthorizable {
    case password(base: URL, username: String, password: String)
    case refresh(base: URL, refreshToken: String)

    var baseURL: URL {
        switch self {
        case .password(let base, _, _), .refresh(let base, _): base
        }
    }
    var path: String { "oauth/token" }
    var method: HTTPMethod { .post }
    var task: RequestTask {
        switch self {
        case .password(_, let username, let password):
            .requestParameters(
                parameters: ["grant_type": "password", "username": username, "password": password],
                encoding: URLEncoding.httpBody)
        case .refresh(_, let refreshToken):
            .requestParameters(
                parameters: ["grant_type": "refresh_token", "refresh_token": refreshToken],
                encoding: URLEncoding.httpBody)
        }
    }
    var headers: [String: String]? { nil }
    var authorizationType: AuthorizationType? { nil }
}
