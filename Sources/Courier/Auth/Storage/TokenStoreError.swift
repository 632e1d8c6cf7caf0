import Foundation

/// Why a ``TokenStore`` failed. Descriptions name the file, never the token.
///
/// `description` and `localizedDescription` read the same: one sentence that says what
/// failed and, when the operating system gave one, its reason (`Is a directory`,
/// `Permission denied`).
public enum TokenStoreError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The file exists but does not hold a token; it was left as it is.
    case corrupt(URL)
    /// Reading the stored token failed; the text says why.
    case readFailed(String)
    /// Writing the token failed; the text says why.
    case writeFailed(String)
    /// Taking the lock that sessions sharing the token take turns through failed (the lock
    /// file could not be created, opened, locked or written), so nothing was read or written;
    /// the text says why.
    case lockFailed(String)

    /// What went wrong, as a sentence.
    public var description: String {
        switch self {
        case .corrupt(let url):
            ErrorText.sentence(
                "the token file \(url.path) is not a valid token; it was left untouched (sign in again to replace it)")
        case .readFailed(let reason): ErrorText.sentence("reading the stored token failed: \(ErrorText.clause(reason))")
        case .writeFailed(let reason): ErrorText.sentence("writing the token failed: \(ErrorText.clause(reason))")
        case .lockFailed(let reason):
            ErrorText.sentence("taking the token's lock failed: \(ErrorText.clause(reason))")
        }
    }

    /// Same as ``description``.
    public var errorDescription: String? { description }
}
