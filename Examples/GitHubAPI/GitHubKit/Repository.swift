import Foundation

/// A GitHub repository.
public struct Repository: Decodable, Sendable, Equatable {
    /// GitHub's numeric id.
    public let id: Int
    /// The name, such as `Hello-World`.
    public let name: String
    /// `owner/name`.
    public let fullName: String
    /// The description, if there is one.
    public let description: String?
    /// The main language, if GitHub detected one.
    public let language: String?
    /// How many people starred it.
    public let stargazersCount: Int
    /// Whether it is a fork.
    public let fork: Bool
    /// Where its page is.
    public let htmlUrl: URL
}
