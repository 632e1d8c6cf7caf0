import Foundation

/// Keeps the token in a JSON file readable by its owner only (mode 0600).
///
/// Every save writes a new file beside the old one and renames it into place, so a crash
/// mid-write never leaves half a token, and another process reading the file sees the old
/// token or the new one. A file that does not hold a token is reported as
/// ``TokenStoreError/corrupt(_:)`` and left untouched.
///
/// **Processes that use the same file coordinate.** Sessions on `FileTokenStore`s of the
/// same file — in several processes (a CLI run twice, a daemon and its client, workers), or
/// in one — behave as one session, with no code of yours: they refresh once per expiry among
/// all of them, a session that slept loads the token another one stored before it sends a
/// request, and none deletes a token another one wrote. They take turns through
/// `<file>.lock` and `<file>.lease` beside the token file (see
/// ``LockFileTokenCoordinator`` and <doc:SharingSessionsBetweenProcesses>).
///
/// Suited to command-line tools and servers; on Apple platforms apps should use
/// `KeychainTokenStore`.
public struct FileTokenStore: TokenStore {
    /// The file.
    public let url: URL
    private let shared: LockFileTokenCoordinator

    /// A store at `url`; its directory is created on the first save if missing.
    public init(url: URL) {
        self.url = url
        self.shared = LockFileTokenCoordinator(
            lockFile: url.appendingPathExtension("lock"), storage: TokenFileStorage(url: url))
    }

    /// The stored token, or `nil` if the file does not exist.
    ///
    /// - Throws: ``TokenStoreError/corrupt(_:)`` when the file is not a token, or
    ///   ``TokenStoreError/readFailed(_:)`` with the system's reason (a directory in its
    ///   place, no permission).
    public func load() throws -> OAuthToken? {
        try shared.readNow().token
    }

    /// Writes `token` atomically with mode 0600, or deletes the file for `nil`. Sessions on
    /// the same file adopt it before their next request.
    ///
    /// - Throws: ``TokenStoreError/writeFailed(_:)`` with the system's reason.
    public func save(_ token: OAuthToken?) throws {
        _ = try shared.writeNow(token, change: .saving(token), ifGeneration: nil)
    }

    /// The coordinator, through the lock file beside the token file.
    public var coordinator: (any TokenStoreCoordinator)? { shared }
}
