import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples of TestingWithStubs.md, kept in sync by DocSamplesSyncTests. They are tests,
// and they run.

enum TestingWithStubs {  // sample scaffold
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
                .requestParameters(parameters: ["q": query, "page": page], encoding: URLEncoding.queryString)
            default: .requestPlain
            }
        }
        var headers: [String: String]? { nil }
        var sampleData: Data { self == .zen ? Data("Half measures are as bad as nothing at all.".utf8) : Data() }
    }

    typealias Account = TokenRefresh.Account

    static func stubbedZen() async throws -> String {
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub)
        return try await provider.request(.zen).mapString()
    }
}  // sample scaffold

extension TestingWithStubs.GitHub: Equatable {}

extension TestingWithStubs {
    @Suite("Testing with stubs samples")
    struct Samples {
        @Test func stubbed() async throws {
            #expect(try await stubbedZen() == "Half measures are as bad as nothing at all.")
        }

        @Test func userNotFound() async throws {
            let provider = Provider<GitHub>.stubbed { target in
                switch target {
                case .user: .networkResponse(404, Data(#"{"message":"Not Found"}"#.utf8))
                default: .networkResponse(200, target.sampleData)
                }
            }
            let response = try await provider.request(.user(name: "nobody"))
            #expect(response.statusCode == 404)
        }

        @Test func recoversAfterAnOutage() async throws {
            let provider = Provider<GitHub>.stubbed(sequence: [
                .networkResponse(503, Data()),
                .networkResponse(200, Data("Keep it logically awesome.".utf8)),
            ])
            #expect(try await provider.request(.zen).statusCode == 503)
            #expect(try await provider.request(.zen).mapString() == "Keep it logically awesome.")
        }

        @Test func searchSendsTheQuery() async throws {
            let transport = ScriptedTransport()
            transport.enqueue(.json(#"{"total_count":0,"items":[]}"#), for: .get("/search/repositories"))
            let provider = Provider<GitHub>.scripted(transport)

            _ = try await provider.request(.search(query: "swift", page: 2))

            #expect(transport.requestCount == 1)
            let url = try #require(transport.lastRequest?.url)
            #expect(url.query?.contains("q=swift") == true)
            #expect(transport.pendingReplyCount == 0)
        }

        @Test func refreshesAnExpiredToken() async throws {
            let clock = TestClock()
            let session = AuthSession(
                refresh: { _ in OAuthToken(accessToken: "new", expiresAt: clock.date + 3600) },
                now: clock.now)
            try await session.signIn(
                OAuthToken(accessToken: "old", refreshToken: "r", expiresAt: clock.date + 3600))
            let transport = ScriptedTransport()
            transport.always(.status(200), for: .any)
            let provider = RefreshableProvider<Account>(auth: session, transport: transport)

            clock.advance(by: 3600)
            _ = try await provider.request(.profile)

            #expect(transport.lastRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer new")
        }
    }
}
