import Courier
import CourierTesting
import Foundation
import GitHubKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How an app tests its own code on top of Courier: stub providers for the happy paths and
/// canned failures, and the recording transport to check what is actually sent.
@Suite("GitHubClient")
struct GitHubClientTests {
    // MARK: Stub providers

    @Test("every call decodes its sample data")
    func sampleData() async throws {
        let client = GitHubClient(provider: .stubbed())

        #expect(try await client.zen() == "Design for failure.")
        let user = try await client.user(named: "octocat")
        #expect(user.login == "octocat")
        #expect(user.publicRepos == 8)
        #expect(user.htmlUrl == URL(string: "https://github.com/octocat"))
        let search = try await client.searchRepositories(matching: "networking")
        #expect(search.items.map(\.fullName) == ["swiftlang/swift", "Alamofire/Alamofire"])
    }

    @Test("forks are left out of a user's repositories")
    func noForks() async throws {
        let client = GitHubClient(provider: .stubbed())

        let repositories = try await client.repositories(of: "octocat")

        #expect(repositories.map(\.name) == ["Hello-World", "git-consortium", "hello-worId"])
    }

    @Test("a 404 becomes notFound, naming who was looked for")
    func notFound() async throws {
        let provider = Provider<GitHub>.stubbed { target in
            switch target {
            case .user: .networkResponse(404, Data(#"{"message":"Not Found"}"#.utf8))
            default: .networkResponse(200, target.sampleData)
            }
        }
        let client = GitHubClient(provider: provider)

        await #expect(throws: GitHubClient.Failure.notFound("nobody")) { try await client.user(named: "nobody") }
        #expect(try await client.zen() == "Design for failure.")
    }

    @Test("no network: failed without a status code")
    func offline() async throws {
        let client = GitHubClient(provider: .stubbed(sequence: [.networkError(URLError(.notConnectedToInternet))]))

        await #expect(throws: GitHubClient.Failure.failed(statusCode: nil)) { try await client.zen() }
    }

    // MARK: Recording transport

    @Test("search sends the query, language filter, sort and page GitHub expects")
    func searchQuery() async throws {
        let transport = ScriptedTransport()
        transport.enqueue(
            .json(#"{"total_count":0,"incomplete_results":false,"items":[]}"#), for: .get("/search/repositories"))
        let client = GitHubClient(provider: .scripted(transport))

        let results = try await client.searchRepositories(matching: "http client", language: "swift", page: 3)

        #expect(results.totalCount == 0)
        let request = try #require(transport.lastRequest)
        let query = URLComponents(url: try #require(request.url), resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(
            Set(query) == [
                URLQueryItem(name: "q", value: "http client language:swift"),
                URLQueryItem(name: "sort", value: "stars"),
                URLQueryItem(name: "order", value: "desc"), URLQueryItem(name: "page", value: "3"),
                URLQueryItem(name: "per_page", value: "10"),
            ])
        #expect(transport.pendingReplyCount == 0)
    }

    @Test("every call sends GitHub's required headers")
    func headers() async throws {
        let transport = ScriptedTransport()
        transport.always(.text("zen"), for: .get("/zen"))
        transport.always(.json("[]"), for: .get("/users/octocat/repos"))
        let client = GitHubClient(provider: .scripted(transport))

        _ = try await client.zen()
        _ = try await client.repositories(of: "octocat")

        #expect(transport.requestCount == 2)
        for request in transport.requests {
            #expect(request.value(forHTTPHeaderField: "User-Agent") == "Courier-GitHubAPI-Example")
            #expect(request.value(forHTTPHeaderField: "X-GitHub-Api-Version") == "2022-11-28")
        }
        #expect(
            transport.requests.map { $0.value(forHTTPHeaderField: "Accept") } == [
                "text/plain", "application/vnd.github+json",
            ])
    }

    @Test("an exhausted rate limit becomes rateLimited with the reset time")
    func rateLimited() async throws {
        let transport = ScriptedTransport()
        transport.enqueue(
            .json(
                #"{"message":"API rate limit exceeded"}"#, statusCode: 403,
                headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000000"]),
            .json(#"{"message":"Forbidden"}"#, statusCode: 403),
            for: .get("/users/octocat"))
        let client = GitHubClient(provider: .scripted(transport))

        await #expect(throws: GitHubClient.Failure.rateLimited(until: Date(timeIntervalSince1970: 1_700_000_000))) {
            try await client.user(named: "octocat")
        }
        await #expect(throws: GitHubClient.Failure.failed(statusCode: 403)) { try await client.user(named: "octocat") }
    }
}
