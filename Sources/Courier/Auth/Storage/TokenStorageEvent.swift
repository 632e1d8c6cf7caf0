import Foundation

/// What happened to a token that the session's store could not write, for the app to show
/// or log (see ``TokenNotStored``). Listen on ``AuthSession/storageEvents``.
public enum TokenStorageEvent: Sendable {
    /// A renewed token could not be written: the session keeps it in memory, uses it, and
    /// tries the write again before its next request.
    case writeFailed(TokenNotStored)
    /// The token kept in memory has been written: sessions sharing the store now use it.
    case written
}
