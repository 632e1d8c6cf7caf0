// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's samples, kept in sync by DocSamplesSyncTests. `targetAndProvider()` is
// compiled, not run: it talks to api.github.com. The Testing sample runs.

enum README {  // sample scaffold
    enum GitHub: TargetType {
        case zen
        case user(name: String)
        case search(query: String, page: Int)

        var baseURL: URL { URL(string: "https://api.github.com")! }
        var path: String {
            switch self {
            case .zen: "zen"
            case .user(let name): "users/\(name)"
            case .search: "search/repositories"
            }
        }
        var method: HTTPMethod { .get }
        var task: RequestTask {
            switch self {
            case .search(let query, let page):
                .requestParameters(parameters: ["q": query, "page": page], encoding: URLEncoding.default)
            default:
                .requestPlain
            }
        }
        var headers: [String: String]? { ["Accept": "application/vnd.github+json"] }
    }

    struct User: Decodable { let login: String }

    static func targetAndProvider() async throws {  // sample scaffold
        let provider = Provider<GitHub>()
        let zen = try await provider.request(.zen).mapString()
        let user = try await provider.request(.user(name: "octocat"), as: User.self)

        // Moya's completion form, cancellable:
        let request = provider.request(.zen) { result in print(result) }
        request.cancel()

        // Tests answer from each target's sampleData, through the same plugin pipeline:
        let stubbed = Provider<GitHub>(stubClosure: Provider.immediatelyStub)
        _ = (zen, user, stubbed)  // sample scaffold
    }  // sample scaffold
}  // sample scaffold

extension README {
    @Suite("README samples")
    struct Samples {
        @Test("the Testing sample answers from the script and records the request")
        func testing() async throws {  // sample scaffold
            let transport = ScriptedTransport()
            transport.enqueue(.json(#"{"login":"octocat"}"#), for: .get("/users/octocat"))
            let scripted = Provider<GitHub>.scripted(transport)
            let octocat = try await scripted.request(.user(name: "octocat"), as: User.self)
            #expect(octocat.login == "octocat")
            #expect(transport.lastRequest?.value(forHTTPHeaderField: "Accept") == "application/vnd.github+json")
        }  // sample scaffold

        @Test("the README's target builds the URLs it promises")
        func target() async throws {
            let transport = ScriptedTransport()
            transport.always(.status(200), for: .any)
            let provider = Provider<GitHub>.scripted(transport)

            _ = try await provider.request(.search(query: "courier", page: 2))
            _ = try await provider.request(.zen)

            #expect(
                transport.requests.map { $0.url?.absoluteString } == [
                    "https://api.github.com/search/repositories?page=2&q=courier", "https://api.github.com/zen",
                ])
        }
    }
}
