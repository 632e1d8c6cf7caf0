import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What an app would write on top of the ``GitHub`` target: typed calls, and GitHub's
/// failures turned into errors the app can act on. It is what the example's tests test.
public struct GitHubClient: Sendable {
    /// What went wrong, in the app's terms.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// There is no user (or repository) by that name.
        case notFound(String)
        /// GitHub's rate limit is used up until the given time.
        case rateLimited(until: Date?)
        /// Anything else: the status code, or `nil` when no response arrived.
        case failed(statusCode: Int?)

        /// A sentence for the user.
        public var description: String {
            switch self {
            case .notFound(let name): "GitHub has nothing called \(name)."
            case .rateLimited(let until):
                "GitHub's rate limit is used up" + (until.map { " until \($0.formatted(.iso8601))" } ?? "") + "."
            case .failed(let statusCode?): "GitHub answered with status \(statusCode)."
            case .failed(nil): "GitHub could not be reached (no network?)."
            }
        }
    }

    /// Sends the calls.
    public let provider: Provider<GitHub>

    /// Creates a client; by default it talks to the real GitHub.
    public init(provider: Provider<GitHub> = Provider<GitHub>()) {
        self.provider = provider
    }

    /// A line of GitHub zen.
    public func zen() async throws(Failure) -> String {
        do {
            return try await provider.request(.zen).mapString()
        } catch {
            throw Self.failure(from: error, subject: "zen")
        }
    }

    /// The profile of the user called `name`.
    public func user(named name: String) async throws(Failure) -> User {
        try await decode(.user(name: name), subject: name)
    }

    /// The public repositories of `owner`, most recently pushed first, without forks.
    public func repositories(of owner: String, page: Int = 1) async throws(Failure) -> [Repository] {
        let all: [Repository] = try await decode(.repositories(owner: owner, page: page), subject: owner)
        return all.filter { !$0.fork }
    }

    /// Repositories that match `text`, limited to `language` if given, most starred first.
    public func searchRepositories(matching text: String, language: String? = nil, page: Int = 1)
        async throws(Failure) -> SearchResults
    {
        let query = [text, language.map { "language:\($0)" }].compactMap { $0 }.joined(separator: " ")
        return try await decode(.searchRepositories(query: query, page: page), subject: query)
    }

    private func decode<D: Decodable>(_ target: GitHub, subject: String) async throws(Failure) -> D {
        do {
            return try await provider.request(target, as: D.self, decoder: Self.decoder)
        } catch {
            throw Self.failure(from: error, subject: subject)
        }
    }

    /// GitHub's JSON uses snake_case keys.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    static func failure(from error: CourierError, subject: String) -> Failure {
        guard let response = error.response else { return .failed(statusCode: nil) }
        let headers = response.response
        let isRateLimited =
            [403, 429].contains(response.statusCode)
            && headers?.value(forHTTPHeaderField: "X-RateLimit-Remaining") == "0"
        if isRateLimited {
            let reset = headers?.value(forHTTPHeaderField: "X-RateLimit-Reset").flatMap(TimeInterval.init)
            return .rateLimited(until: reset.map { Date(timeIntervalSince1970: $0) })
        }
        return response.statusCode == 404 ? .notFound(subject) : .failed(statusCode: response.statusCode)
    }
}
