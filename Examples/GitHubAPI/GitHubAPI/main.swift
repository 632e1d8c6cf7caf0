// An example app that talks to a GitHub-style API through Courier.
//
//     swift run GitHubAPI            # offline: every answer comes from SampleData/
//     swift run GitHubAPI --live     # the real api.github.com (needs the internet)
//     swift run GitHubAPI --verbose  # also log requests and responses (secrets redacted)
import Courier
import CourierPlugins
import Foundation
import GitHubKit

let arguments = Set(CommandLine.arguments.dropFirst())
let live = arguments.contains("--live")
var plugins: [any PluginType] = []
if arguments.contains("--verbose") {
    plugins.append(NetworkLoggerPlugin(configuration: .init(logOptions: .verbose, maximumBodyLength: 300)))
}
let provider =
    live
    ? Provider<GitHub>(plugins: plugins)
    : Provider<GitHub>(stubClosure: Provider.immediatelyStub, plugins: plugins)
let client = GitHubClient(provider: provider)

print(live ? "GitHub API, live" : "GitHub API, stubbed from sample data (pass --live for the real host)")
do {
    print("zen:", try await client.zen())

    let user = try await client.user(named: "octocat")
    print(
        "user: \(user.login) (\(user.name ?? "no name")), \(user.publicRepos) public repositories, \(user.followers) followers"
    )

    let repositories = try await client.repositories(of: user.login)
    print("repositories (no forks):")
    for repository in repositories {
        print("  \(repository.fullName) ★\(repository.stargazersCount)")
    }

    let results = try await client.searchRepositories(matching: "networking", language: "swift")
    print("search: \(results.totalCount) results")
    for repository in results.items {
        print("  \(repository.fullName) ★\(repository.stargazersCount) — \(repository.description ?? "")")
    }
} catch {
    print("failed: \(error)")
    exit(1)
}
