import Foundation

/// A renewed token that the store refused to write (a full disk, a read-only file system, a
/// locked Keychain, a custom store that threw).
///
/// The session does not drop the token: the server has issued it, and with rotating refresh
/// tokens it has retired the one it replaced, so it is the only valid credential there is.
/// The session keeps it in memory and signs requests with it, writes it before its next
/// request (or renewal) as soon as the store accepts writes, and from then on the sessions
/// sharing the store use it too. Until then, other processes sharing the store still see the
/// token it replaced.
///
/// Read it from ``AuthSession/unstoredTokenError`` or ``AuthSession/storageEvents``. Its
/// description names the store's error, never a token.
public struct TokenNotStored: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What the store threw (a ``TokenStoreError`` for the file and Keychain stores).
    public let underlying: any Error

    /// Creates the error.
    public init(underlying: any Error) {
        self.underlying = underlying
    }

    /// What happened, and what the session does about it.
    public var description: String {
        ErrorText.sentence(
            "the new token could not be stored ("
                + ErrorText.describe(underlying, redaction: .default)
                + "); it is kept in memory and used, and it is written as soon as the store accepts writes")
    }

    /// Same as ``description``.
    public var errorDescription: String? { description }
}
