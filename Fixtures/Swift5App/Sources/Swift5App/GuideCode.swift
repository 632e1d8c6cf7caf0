import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The migration guide's Courier code, as a Swift 5 mode app writes it (`TargetType` without
// `any`, `[String: Any]` where Moya had it; a custom encoding takes `[String: any Sendable]?`).

struct Logger: PluginType {
    func willSend(_ request: URLRequest, target: TargetType) {
        print(request.url?.absoluteString ?? "")
    }
}

struct PlainText: ParameterEncoding {
    func encode(_ request: URLRequest, with parameters: [String: any Sendable]?) throws -> URLRequest {
        var request = request
        let lines = (parameters ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        request.httpBody = Data(lines.joined(separator: "\n").utf8)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        return request
    }
}

enum Account: TargetType, AccessTokenAuthorizable {
    case login, profile
    var baseURL: URL { URL(string: "https://api.example.com")! }
    var path: String { self == .login ? "login" : "me" }
    var method: HTTPMethod { self == .login ? .post : .get }
    var task: RequestTask {
        let parameters: [String: Any] = ["client": "swift5app", "remember": true]
        return .requestParameters(parameters: parameters, encoding: PlainText())
    }
    var headers: [String: String]? { nil }
    var authorizationType: AuthorizationType? { self == .login ? nil : .bearer }
}

final class AccountProvider: Provider<Account>, @unchecked Sendable {
    let region: String
    init(region: String, plugins: [PluginType] = []) {
        self.region = region
        super.init(plugins: plugins + [Logger()])
    }
}

func message(for error: CourierError) -> String? {
    switch error {
    case .cancelled: return nil
    case .statusCode(let response): return "HTTP \(response.statusCode)"
    case .authentication(.sessionExpired): return "Please sign in again."
    default: return error.localizedDescription
    }
}

func send(_ provider: Provider<Account>, progress: @escaping ProgressBlock, completion: @escaping Completion)
    -> Cancellable
{
    provider.request(.profile, callbackQueue: .main, progress: progress, completion: completion)
}

func fetchProfile(_ provider: AccountProvider) async -> String? {
    do {
        return try await provider.request(.profile).mapString()
    } catch {
        return message(for: error)
    }
}
