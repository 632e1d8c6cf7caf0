import Foundation

/// A GitHub user's public profile.
public struct User: Decodable, Sendable, Equatable {
    /// The user's handle, such as `octocat`.
    public let login: String
    /// GitHub's numeric id.
    public let id: Int
    /// The display name, if the user set one.
    public let name: String?
    /// Where the profile page is.
    public let htmlUrl: URL
    /// How many public repositories the user has.
    public let publicRepos: Int
    /// How many people follow the user.
    public let followers: Int
}
