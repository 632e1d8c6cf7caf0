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
