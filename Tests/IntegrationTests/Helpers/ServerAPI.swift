import Courier
import CourierTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Targets against the local test server; `base` is the running server's URL.
struct ServerAPI: TargetType, AccessTokenAuthorizable {
    var base: URL
    var path: String
    var method: HTTPMethod = .get
    var task: RequestTask = .requestPlain
    var headers: [String: String]? = nil
    var validationType: ValidationType = .none
    var authorizationType: AuthorizationType? = .bearer

    var baseURL: URL { base }

    init(
        _ server: TestServer, _ path: String, method: HTTPMethod = .get, task: RequestTask = .requestPlain,
        headers: [String: String]? = nil, authorizationType: AuthorizationType? = .bearer
    ) {
        self.base = server.baseURL
        self.path = path
        self.method = method
        self.task = task
        self.headers = headers
        self.authorizationType = authorizationType
    }
}

/// What `/echo` reports about the request it received.
struct Echo: Decodable {
    let method: String
    let path: String
    let query: String
    let args: [String: [String]]
    let headers: [String: String]
    let body: String
    let bodyLength: Int
    let form: [String: [String]]?

    enum CodingKeys: String, CodingKey {
        case method, path, query, args, headers, body, form
        case bodyLength = "body_length"
    }

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    func jsonBody() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] ?? [:]
    }
}

extension Response {
    func echo() throws -> Echo { try map(Echo.self) }
}
