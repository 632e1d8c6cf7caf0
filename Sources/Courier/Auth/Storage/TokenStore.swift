import Foundation

/// Where an ``AuthSession`` keeps its token between launches.
///
/// Courier ships ``InMemoryTokenStore``, ``FileTokenStore`` and, on Apple platforms,
/// `KeychainTokenStore` (use that one in apps: never `UserDefaults`). Write your own to keep
/// tokens elsewhere; the session calls it from its actor, one call at a time.
public protocol TokenStore: Sendable {
    /// The stored token, or `nil` when there is none.
    ///
    /// - Throws: when the storage cannot be read or holds something that is not a token.
    func load() throws -> OAuthToken?

    /// Stores `token`, replacing what was there; `nil` deletes it.
    ///
    /// - Throws: when the token could not be written. The session then keeps the previous
    ///   token and reports the failure.
    func save(_ token: OAuthToken?) throws
}

/// Keeps the token in memory only: it is gone when the process ends.
public final class InMemoryTokenStore: TokenStore {
    private let token: Locked<OAuthToken?>

    /// Creates a store holding `token`.
    public init(_ token: OAuthToken? = nil) {
        self.token = Locked(token)
    }

    /// The token.
    public func load() -> OAuthToken? {
        token.current
    }

    /// Replaces the token.
    public func save(_ token: OAuthToken?) {
        self.token.withLock { $0 = token }
    }
}

/// Why a ``TokenStore`` failed. Descriptions name the file, never the token.
public enum TokenStoreError: Error, Sendable, CustomStringConvertible {
    /// The file exists but does not hold a token; it was left as it is.
    case corrupt(URL)
    /// Reading the stored token failed.
    case readFailed(String)
    /// Writing the token failed.
    case writeFailed(String)

    /// What went wrong.
    public var description: String {
        switch self {
        case .corrupt(let url):
            "the token file \(url.path) is not a valid token; it was left untouched (sign in again to replace it)"
        case .readFailed(let reason): "reading the stored token failed: \(reason)"
        case .writeFailed(let reason): "writing the token failed: \(reason)"
        }
    }
}
