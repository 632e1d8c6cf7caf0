import Courier
import Foundation

/// The app's API, Moya style: the cases here, the conformance in an extension.
public enum API {
    case me
    case createPost(NewPost)
    case posts(page: Int)
    case publicFeed
}

extension API: TargetType {
    public var baseURL: URL { AppConfig.apiBaseURL }

    public var path: String {
        switch self {
        case .me: "me"
        case .createPost, .posts: "posts"
        case .publicFeed: "feed"
        }
    }

    public var method: HTTPMethod {
        switch self {
        case .createPost: .post
        default: .get
        }
    }

    public var task: RequestTask {
        switch self {
        case .createPost(let post): .requestJSONEncodable(post)
        case .posts(let page): .requestParameters(parameters: ["page": page], encoding: URLEncoding.queryString)
        default: .requestPlain
        }
    }

    public var headers: [String: String]? { ["Accept": "application/json"] }

    public var sampleData: Data {
        switch self {
        case .me: Data(#"{"name":"Ada","email":"ada@example.com"}"#.utf8)
        default: Data("[]".utf8)
        }
    }
}

extension API: AccessTokenAuthorizable {
    public var authorizationType: AuthorizationType? {
        switch self {
        case .publicFeed: nil
        default: .bearer
        }
    }
}
