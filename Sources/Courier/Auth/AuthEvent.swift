/// Something that happened to an ``AuthSession``, for the app to react to.
///
/// Listen on ``AuthSession/events`` and show the login screen on ``sessionExpired``:
///
/// ```swift
/// Task {
///     for await event in session.events where event == .sessionExpired {
///         await showLoginScreen()
///     }
/// }
/// ```
public enum AuthEvent: Sendable, Equatable {
    /// A token was set with ``AuthSession/signIn(_:)``.
    case signedIn
    /// A first token was obtained through the session's `acquire` closure.
    case acquired
    /// The token was refreshed.
    case refreshed
    /// A refresh failed for a reason that may pass (network, time-out, 5xx): the session keeps its
    /// current token for the next try.
    case refreshFailed
    /// The refresh token was rejected: the user must sign in again. Emitted once per
    /// session.
    case sessionExpired
    /// ``AuthSession/signOut()`` cleared the token.
    case signedOut
}
