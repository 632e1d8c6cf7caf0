// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The Courier side of MigratingFromMoya.md, kept in sync by DocSamplesSyncTests.

enum MigratingFromMoya {  // sample scaffold
    enum Zen: TargetType {
        case zen
        var baseURL: URL { URL(string: "https://api.github.com")! }
        var path: String { "zen" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    static func printZen(_ provider: Provider<Zen>) async {
        do {
            print(try await provider.request(.zen).mapString())
        } catch {
            print(error.description)
        }
    }

    static func send(_ provider: Provider<Zen>, progress: @escaping ProgressBlock, completion: @escaping Completion)
        -> any Cancellable
    {
        provider.request(.zen, callbackQueue: .main, progress: progress, completion: completion)
    }

    enum Search: TargetType {
        case repositories(query: String, page: Int)
        var baseURL: URL { URL(string: "https://api.github.com")! }
        var path: String { "search/repositories" }
        var method: HTTPMethod { .get }
        var task: RequestTask {
            switch self {
            case .repositories(let query, let page):
                var parameters: [String: any Sendable] = ["q": query]
                if page > 1 { parameters["page"] = page }
                return .requestParameters(parameters: parameters, encoding: URLEncoding.queryString)
            }
        }
        var headers: [String: String]? { nil }
    }

    static func parameters(fromJSON data: Data) throws -> [String: any Sendable] {
        let object = try JSONSerialization.jsonObject(with: data)
        return object as? [String: any Sendable] ?? [:]
    }

    static let tags = URLEncoding(destination: .queryString, arrayEncoding: .noBrackets, boolEncoding: .literal)

    struct PlainText: ParameterEncoding {
        func encode(_ request: URLRequest, with parameters: [String: any Sendable]?) throws -> URLRequest {
            var request = request
            let lines = (parameters ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            request.httpBody = Data(lines.joined(separator: "\n").utf8)
            request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
            return request
        }
    }

    static func avatarTask(_ jpeg: Data) -> RequestTask {
        let avatar = MultipartFormData(
            provider: .data(jpeg), name: "avatar", fileName: "a.jpg", mimeType: "image/jpeg")
        return .uploadMultipart([avatar])
    }

    struct Timing: PluginType {
        func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
            request
        }
        func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {}
    }

    struct Logger: PluginType {
        func willSend(_ request: URLRequest, target: any TargetType) {
            print(request.url?.absoluteString ?? "")
        }
    }

    static func message(for error: CourierError) -> String? {
        switch error {
        case .cancelled: return nil
        case .statusCode(let response): return "HTTP \(response.statusCode)"
        case .authentication(.sessionExpired): return "Please sign in again."
        default: return error.localizedDescription
        }
    }

    static func makeProvider() -> Provider<Zen> {
        let configuration = URLSessionTransport.defaultConfiguration()
        configuration.timeoutIntervalForRequest = 20
        configuration.httpAdditionalHeaders = ["User-Agent": "MyApp/2.1"]
        return Provider<Zen>(transport: URLSessionTransport(configuration: configuration))
    }

    static let shared = Provider<Zen>(trackInflights: true)

    final class ZenProvider: Provider<Zen>, @unchecked Sendable {  // only `let`s
        let region: String
        init(region: String, plugins: [any PluginType] = []) {
            self.region = region
            super.init(plugins: plugins)
        }
    }

    enum Account: TargetType, AccessTokenAuthorizable {
        case login, profile
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { self == .login ? "login" : "me" }
        var method: HTTPMethod { self == .login ? .post : .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
        var authorizationType: AuthorizationType? { self == .login ? nil : .bearer }
    }

    static let endpointClosure: Provider<Zen>.EndpointClosure = { target in
        Provider.defaultEndpointMapping(for: target).adding(newHTTPHeaderFields: ["X-App": "1"])
    }
}  // sample scaffold

extension MigratingFromMoya {
    @Suite("Migrating from Moya samples")
    struct Samples {
        @Test("the migrated target and plugin run through a provider")
        func migrated() async throws {
            let transport = ScriptedTransport()
            transport.enqueue(.text("Approachable is better than simple."), for: .get("/zen"))
            let provider = Provider<Zen>.scripted(transport, plugins: [Timing()])

            await printZen(provider)

            #expect(transport.requests.map { $0.url?.absoluteString } == ["https://api.github.com/zen"])
        }

        @Test("the guide's parameters, encodings, multipart part, errors and subclass behave as it says")
        func guide() throws {
            let search = try Provider.defaultEndpointMapping(for: Search.repositories(query: "swift", page: 2))
                .urlRequest()
            #expect(search.url?.query == "page=2&q=swift")
            #expect(try parameters(fromJSON: Data(#"{"page":2}"#.utf8))["page"] as? Int == 2)
            #expect(tags.query(["t": ["a", "b"], "all": true]) == "all=true&t=a&t=b")
            let plain = try PlainText().encode(
                URLRequest(url: URL(string: "https://x.example")!), with: ["b": 2, "a": 1])
            #expect(plain.httpBody == Data("a=1\nb=2".utf8))
            guard case .uploadMultipart(let parts) = avatarTask(Data([1])) else {
                Issue.record("not a multipart task")
                return
            }
            #expect(parts.first?.fileName == "a.jpg")
            #expect(message(for: .cancelled) == nil)
            #expect(message(for: .statusCode(Response(statusCode: 503, data: Data()))) == "HTTP 503")
            #expect(ZenProvider(region: "eu").region == "eu")
            #expect(shared.trackInflights)
            #expect(Account.login.authorizationType == nil && Account.profile.authorizationType == .bearer)
            #expect(endpointClosure(.zen).httpHeaderFields?["X-App"] == "1")
            #expect(makeProvider().transport is URLSessionTransport)
        }
    }
}
