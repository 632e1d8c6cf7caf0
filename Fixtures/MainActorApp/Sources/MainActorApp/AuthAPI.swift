import Courier
import Foundation

/// The token endpoint, called by the session's refresh closure through a plain provider.
public enum AuthAPI {
    case refresh(refreshToken: String)
}

extension AuthAPI: TargetType {
    public var baseURL: URL { AppConfig.authBaseURL }
    public var path: String { "oauth/token" }
    public var method: HTTPMethod { .post }

    public var task: RequestTask {
        switch self {
        case .refresh(let refreshToken):
            .requestParameters(
                parameters: [
                    "grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": AppConfig.clientID,
                ],
                encoding: URLEncoding.httpBody)
        }
    }

    public var headers: [String: String]? { nil }
}

extension AuthAPI: AccessTokenAuthorizable {
    // The token endpoint is never signed with the access token.
    public var authorizationType: AuthorizationType? { nil }
}
