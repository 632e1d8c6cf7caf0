import Foundation

/// Where a token endpoint's JSON answer keeps the access token, the refresh token, the token
/// type and the expiry: OAuth's field names by default, or your backend's.
///
/// ``OAuthToken/init(response:format:receivedAt:)`` and
/// ``OAuthToken/init(tokenResponse:format:receivedAt:)`` read a token with it and make every
/// check they make for an OAuth answer: the bounds of ``OAuthToken/validate()`` (16 KiB
/// tokens, no control character, a short token type, ``TokenValidationError`` naming the
/// field), and an expiry that is kept only when it gives a lifetime of at least
/// ``OAuthToken/minimumLifetime`` and at most ``OAuthToken/maximumLifetime``.
///
/// For a backend whose token endpoint answers
/// `{"data": {"accessToken": "…", "refreshToken": "…", "expiresAt": "2026-12-01T22:00:00Z"}}`:
///
/// ```swift
/// let format = TokenResponseFormat(
///     accessToken: "data.accessToken", refreshToken: "data.refreshToken", expiry: .date("data.expiresAt"))
/// let token = try OAuthToken(response: response, format: format)
/// ```
///
/// Field names are key paths: `data.accessToken` is the `accessToken` of the object under
/// `data`. A field that is absent (or `null`) counts as not sent.
public struct TokenResponseFormat: Sendable, Equatable {
    /// Where the expiry comes from.
    public enum Expiry: Sendable, Equatable {
        /// A lifetime in seconds from when the answer was received, as OAuth's `expires_in`: a
        /// JSON number, or a string of decimal digits (`"3600"`; not `"0x10"`, `"1e3"` or a
        /// boolean).
        case lifetime(String)
        /// A moment: an ISO 8601 date and time string (`2026-12-01T22:00:00Z`, fractional
        /// seconds and offsets allowed), or seconds since 1970 (a number, or a string holding
        /// one). A number larger than 100,000,000,000 is read as milliseconds since 1970.
        case date(String)
        /// The `exp` claim of the access token, a JWT (read, not verified: the server does
        /// that). Every other kind falls back to it when its field is absent or unusable.
        case jwt
        /// No expiry: the token is used until the server rejects it.
        case unknown
    }

    /// The key path of the access token, a string (required).
    public var accessToken: String
    /// The key path of the refresh token; `nil` when the endpoint never sends one. An absent
    /// or empty one keeps the current refresh token on refresh (RFC 6749 §6).
    public var refreshToken: String?
    /// The key path of the token type; `nil`, or an absent field, means `Bearer`.
    public var tokenType: String?
    /// Where the expiry comes from.
    public var expiry: Expiry

    /// A format with these key paths; each defaults to OAuth's.
    ///
    /// ```swift
    /// TokenResponseFormat(accessToken: "token", refreshToken: "refresh", expiry: .date("expires"))
    /// ```
    public init(
        accessToken: String = "access_token", refreshToken: String? = "refresh_token",
        tokenType: String? = "token_type", expiry: Expiry = .lifetime("expires_in")
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiry = expiry
    }

    /// RFC 6749 §5.1: `access_token`, `refresh_token`, `token_type`, `expires_in` (seconds),
    /// with the JWT's `exp` when `expires_in` is absent. What ``OAuthToken`` reads by default.
    public static let oauth = TokenResponseFormat()

    /// The same fields in camel case: `accessToken`, `refreshToken`, `tokenType`, `expiresIn`
    /// (seconds), with the JWT's `exp` when `expiresIn` is absent.
    public static let camelCase = TokenResponseFormat(
        accessToken: "accessToken", refreshToken: "refreshToken", tokenType: "tokenType",
        expiry: .lifetime("expiresIn"))
}
