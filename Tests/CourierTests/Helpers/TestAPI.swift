import Courier
import Foundation

/// A small API used by the unit tests.
enum TestAPI: TargetType {
    case plain
    case user(id: Int)
    case search(query: String)
    case create(name: String)
    case failing
    case validated

    var baseURL: URL { URL(string: "https://api.example.com/v1")! }
    var path: String {
        switch self {
        case .plain: ""
        case .user(let id): "users/\(id)"
        case .search: "search"
        case .create: "users"
        case .failing: "fail"
        case .validated: "validated"
        }
    }
    var method: HTTPMethod {
        switch self {
        case .create: .post
        default: .get
        }
    }
    var task: RequestTask {
        switch self {
        case .search(let query): .requestParameters(parameters: ["q": query], encoding: URLEncoding.default)
        case .create(let name): .requestJSONEncodable(["name": name])
        default: .requestPlain
        }
    }
    var headers: [String: String]? { ["Accept": "application/json"] }
    var validationType: ValidationType {
        switch self {
        case .validated: .successCodes
        default: .none
        }
    }
    var sampleData: Data {
        switch self {
        case .user(let id): Data(#"{"id":\#(id),"name":"Ada"}"#.utf8)
        default: Data(#"{"ok":true}"#.utf8)
        }
    }
}

struct User: Codable, Equatable {
    let id: Int
    let name: String
}
