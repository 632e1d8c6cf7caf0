import Courier
import Foundation

/// The part of the GitHub REST API this example uses, as a Courier target.
public enum GitHub: TargetType {
    /// A random line of GitHub zen, as text.
    case zen
    /// A user's public profile.
    case user(name: String)
    /// A user's public repositories, most recently pushed first.
    case repositories(owner: String, page: Int = 1)
    /// Repositories that match a search query, most starred first.
    case searchRepositories(query: String, page: Int = 1, perPage: Int = 10)

    /// `https://api.github.com`.
    public var baseURL: URL { URL(string: "https://api.github.com")! }

    /// The path of each call.
    public var path: String {
        switch self {
        case .zen: "zen"
        case .user(let name): "users/\(name)"
        case .repositories(let owner, _): "users/\(owner)/repos"
        case .searchRepositories: "search/repositories"
        }
    }

    /// Every call is a `GET`.
    public var method: HTTPMethod { .get }

    /// Query parameters for the list and search calls.
    public var task: RequestTask {
        switch self {
        case .zen, .user:
            .requestPlain
        case .repositories(_, let page):
            .requestParameters(parameters: ["sort": "pushed", "page": page], encoding: URLEncoding.queryString)
        case .searchRepositories(let query, let page, let perPage):
            .requestParameters(
                parameters: ["q": query, "sort": "stars", "order": "desc", "page": page, "per_page": perPage],
                encoding: URLEncoding.queryString)
        }
    }

    /// The headers GitHub asks every client to send.
    public var headers: [String: String]? {
        [
            "Accept": self == .zen ? "text/plain" : "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "Courier-GitHubAPI-Example",
        ]
    }

    /// Only 2xx answers are successes.
    public var validationType: ValidationType { .successCodes }

    /// What a stub provider answers with: the files in `SampleData/`.
    public var sampleData: Data {
        switch self {
        case .zen: SampleData.load("zen", extension: "txt")
        case .user: SampleData.load("user")
        case .repositories: SampleData.load("repositories")
        case .searchRepositories: SampleData.load("search")
        }
    }
}

extension GitHub: Equatable {
    /// Two calls are equal when they are the same case with the same arguments.
    public static func == (lhs: GitHub, rhs: GitHub) -> Bool {
        switch (lhs, rhs) {
        case (.zen, .zen): true
        case (.user(let a), .user(let b)): a == b
        case (.repositories(let a, let p), .repositories(let b, let q)): a == b && p == q
        case (.searchRepositories(let a, let p, let n), .searchRepositories(let b, let q, let m)):
            a == b && p == q && n == m
        default: false
        }
    }
}
