/// Why a request could not be signed, or a token could not be refreshed.
///
/// Requests report it wrapped in ``CourierError/authentication(_:)`` (and ``cancelled`` as
/// ``CourierError/cancelled``). Descriptions never contain a token.
public enum AuthenticationError: Error {
    /// There is no token and no way to get one: sign in first.
    case missingCredential
    /// The refresh token was rejected (`invalid_grant`): the session is over and the app
    /// must show its login screen. Requests fail fast with this until the next sign-in.
    case sessionExpired
    /// Refreshing failed for a reason that may pass (network, time-out, 5xx, an unreadable
    /// answer); the session keeps its current token (never a refresh token the server has
    /// retired) and the next request tries again.
    case refreshFailed(any Error)
    /// The server kept rejecting tokens it had just issued, more often than the session's
    /// ``RefreshWindow`` (its `refreshWindow:` parameter) allows, so Courier stops instead of
    /// looping. Scheduled refreshes of a healthy session never count toward that limit.
    case excessiveRefresh
    /// The token endpoint's answer is not a valid RFC 6749 token response.
    case invalidTokenResponse
    /// The task waiting for a token was cancelled.
    case cancelled
    /// The token store could not be read (a corrupt token file, say); it was left as it
    /// is. Signing in again replaces it.
    case storeUnavailable(any Error)
}
