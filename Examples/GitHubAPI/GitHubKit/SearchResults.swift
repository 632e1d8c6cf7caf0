import Foundation

/// One page of repository search results.
public struct SearchResults: Decodable, Sendable, Equatable {
    /// How many repositories match in all.
    public let totalCount: Int
    /// Whether GitHub stopped searching early (a time-out on its side).
    public let incompleteResults: Bool
    /// The repositories on this page.
    public let items: [Repository]
}
