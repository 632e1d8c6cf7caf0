import Courier
import Foundation

/// A Moya 15 target, moved over with the guide's renames only.
enum MyService {
    case zen
    case showUser(id: Int)
    case createUser(firstName: String, lastName: String)
    case search(query: String, tags: [String], includeArchived: Bool)
    case uploadAvatar(Data)
}

extension MyService: TargetType {
    var baseURL: URL { URL(string: "https://api.myservice.com")! }

    var path: String {
        switch self {
        case .zen: return "/zen"
        case .showUser(let id): return "/users/\(id)"
        case .createUser: return "/users"
        case .search: return "/search"
        case .uploadAvatar: return "/me/avatar"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .zen, .showUser, .search: return .get
        case .createUser, .uploadAvatar: return .post
        }
    }

    var task: RequestTask {
        switch self {
        case .zen, .showUser:
            return .requestPlain
        case let .createUser(firstName, lastName):
            // Moya apps build `[String: Any]` and pass it on.
            var parameters: [String: Any] = ["first_name": firstName]
            parameters["last_name"] = lastName
            return .requestParameters(parameters: parameters, encoding: JSONEncoding.default)
        case let .search(query, tags, includeArchived):
            let parameters: [String: Any] = ["q": query, "tags": tags, "archived": includeArchived]
            return .requestParameters(
                parameters: parameters,
                encoding: URLEncoding(destination: .queryString, arrayEncoding: .noBrackets, boolEncoding: .literal))
        case .uploadAvatar(let data):
            let avatar = MultipartFormData(
                provider: .data(data), name: "avatar", fileName: "a.jpg", mimeType: "image/jpeg")
            return .uploadMultipart([avatar])
        }
    }

    var sampleData: Data {
        switch self {
        case .zen: return Data("Half measures are as bad as nothing at all.".utf8)
        case .showUser(let id): return Data("{\"id\": \(id), \"first_name\": \"Harry\"}".utf8)
        default: return Data()
        }
    }

    var headers: [String: String]? { ["Content-type": "application/json"] }
}

extension MyService: AccessTokenAuthorizable {
    var authorizationType: AuthorizationType? {
        switch self {
        case .zen: return nil
        default: return .bearer
        }
    }
}
