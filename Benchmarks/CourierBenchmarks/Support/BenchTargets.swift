import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A 55-byte JSON object: the body every benchmark answers with.
let smallJSONBody = Data(#"{"id":42,"name":"Ada Lovelace","email":"ada@example.org"}"#.utf8)

/// The pipeline benchmark's API: one GET with one header, validated as 2xx, like a typical
/// Moya target. Its URL and header are exactly what the floor builds by hand.
enum PipelineAPI: TargetType {
    case item
    /// The same request for another item: a path the provider has not joined before.
    case numbered(Int)

    static let base = URL(string: "http://127.0.0.1:8080")!
    /// The URL the target resolves to; the floor builds its request from this string.
    static let itemURLString = "http://127.0.0.1:8080/items/42"

    var baseURL: URL { Self.base }
    var path: String {
        switch self {
        case .item: "items/42"
        case .numbered(let number): "items/\(number)"
        }
    }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { ["Accept": "application/json"] }
    var validationType: ValidationType { .successCodes }
    var sampleData: Data { smallJSONBody }
}

/// A plugin that implements every hook and does nothing, so each hook really runs.
struct NoOpPlugin: PluginType {
    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest { request }
    func willSend(_ request: URLRequest, target: any TargetType) {}
    func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {}
    func process(_ result: Result<Response, CourierError>, target: any TargetType) -> Result<Response, CourierError> {
        result
    }
}

/// A GET of a small JSON document on a local server (nginx in the loopback benchmark).
struct LoopbackAPI: TargetType {
    let baseURL: URL
    var path: String { "small.json" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { ["Accept": "application/json"] }
}

/// A protected route of the test server, signed with the session's token.
struct ProtectedAPI: TargetType, AccessTokenAuthorizable {
    let baseURL: URL
    let path: String
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { ["Accept": "application/json"] }
    var authorizationType: AuthorizationType? { .bearer }
}
