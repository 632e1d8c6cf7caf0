// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

// The samples of Courier.md and GettingStarted.md, kept in sync by DocSamplesSyncTests.
// Functions that would reach api.github.com are compiled, not run; the tests below run the
// same target against stubs and a scripted transport. (The imports come right before the
// target, as in the article's first sample.)

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum GettingStarted {  // sample scaffold
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
                .requestParameters(
                    parameters: ["q": query, "page": page], encoding: URLEncoding.queryString)
            default:
                .requestPlain
            }
        }
        var headers: [String: String]? { ["Accept": "application/vnd.github+json"] }
        var validationType: ValidationType { .successCodes }
    }

    struct GitHubUser: Decodable {
        let login: String
        let publicRepos: Int
    }

    static func sendRequests() async throws {  // sample scaffold
        let provider = Provider<GitHub>()
        let zen = try await provider.request(.zen).mapString()

        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let user = try await provider.request(.user(name: "octocat"), as: GitHubUser.self, decoder: decoder)
        _ = (zen, user)  // sample scaffold
    }  // sample scaffold

    static func overview() async throws {  // sample scaffold
        let provider = Provider<GitHub>()
        let user = try await provider.request(.user(name: "octocat"), as: GitHubUser.self)
        _ = user  // sample scaffold
    }  // sample scaffold

    static func handleErrors(_ provider: Provider<GitHub>) async -> Bool {  // sample scaffold
        var printed = false  // sample scaffold
        do {
            _ = try await provider.request(.user(name: "nobody"))
        } catch {
            if case .statusCode(let response) = error, response.statusCode == 404 {
                print("no such user")
                printed = true  // sample scaffold
            }
        }
        return printed  // sample scaffold
    }  // sample scaffold

    static func completion(_ provider: Provider<GitHub>) -> any Cancellable {  // sample scaffold
        let request = provider.request(.zen) { result in
            switch result {
            case .success(let response): print(response.statusCode)
            case .failure(let error): print(error)
            }
        }
        request.cancel()
        return request  // sample scaffold
    }  // sample scaffold
}  // sample scaffold

extension GettingStarted {
    @Suite("Getting started samples")
    struct Samples {
        @Test("a 404 for a validated target is a statusCode error carrying the response")
        func errors() async {
            let provider = Provider<GitHub>.stubbed { _ in .networkResponse(404, Data()) }
            #expect(await handleErrors(provider))
        }

        @Test("the completion form's Cancellable cancels")
        func cancellable() {
            let provider = Provider<GitHub>(stubClosure: Provider.delayedStub(10))
            #expect(completion(provider).isCancelled)
        }

        @Test("the search target sends its parameters in the query string")
        func search() async throws {
            let transport = ScriptedTransport()
            transport.always(.json(#"{"login":"octocat","public_repos":8}"#), for: .any)
            let provider = Provider<GitHub>.scripted(transport)

            _ = try await provider.request(.search(query: "swift", page: 2))
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let user = try await provider.request(.user(name: "octocat"), as: GitHubUser.self, decoder: decoder)

            #expect(transport.requests.first?.url?.query == "page=2&q=swift")
            #expect(user.publicRepos == 8)
        }
    }
}
