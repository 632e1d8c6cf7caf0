import Foundation

/// An OAuth 2 access token, with the refresh token and expiry that come with it.
///
/// Parse one from a token endpoint's answer with ``init(tokenResponse:receivedAt:)``, or
/// build one yourself. Its description never shows the token or the refresh token, so it is
/// safe to log.
public struct OAuthToken: Codable, Sendable, Equatable {
    /// The access token sent in `Authorization`.
    public var accessToken: String
    /// The refresh token, if the server issued one.
    public var refreshToken: String?
    /// The scheme, `"Bearer"` unless the server says otherwise.
    public var tokenType: String
    /// When the access token expires; `nil` means it never does.
    public var expiresAt: Date?
    /// When the token was issued (received), so its lifetime is known after a reload too.
    public var issuedAt: Date?

    /// Creates a token.
    public init(
        accessToken: String, refreshToken: String? = nil, tokenType: String = "Bearer",
        expiresAt: Date? = nil, issuedAt: Date? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
    }

    /// Parses an RFC 6749 §5.1 token response: `access_token`, `token_type`, `expires_in`,
    /// `refresh_token`.
    ///
    /// `expires_in` counts from `receivedAt`, which becomes ``issuedAt``. When `expires_in`
    /// is absent and the access token is a JWT, its `exp` claim is used; otherwise the token
    /// never expires. A lower-case `bearer` is normalised to `Bearer`.
    ///
    /// - Throws: ``AuthenticationError/invalidTokenResponse`` when the body is not JSON or
    ///   has no non-empty `access_token`.
    public init(tokenResponse: Data, receivedAt: Date) throws(AuthenticationError) {
        guard let object = try? JSONSerialization.jsonObject(with: tokenResponse) as? [String: Any],
            let accessToken = object["access_token"] as? String, !accessToken.isEmpty
        else {
            throw .invalidTokenResponse
        }
        self.accessToken = accessToken
        self.refreshToken = (object["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        let type = (object["token_type"] as? String) ?? "Bearer"
        self.tokenType = type.caseInsensitiveCompare("bearer") == .orderedSame ? "Bearer" : type
        self.issuedAt = receivedAt
        if let expiresIn = Self.seconds(object["expires_in"]) {
            self.expiresAt = receivedAt.addingTimeInterval(expiresIn)
        } else {
            self.expiresAt = JWT.expiry(of: accessToken)
        }
    }

    /// The token's lifetime (`expiresAt − issuedAt`), when both are known.
    public var lifetime: TimeInterval? {
        guard let expiresAt, let issuedAt else { return nil }
        return expiresAt.timeIntervalSince(issuedAt)
    }

    /// Whether the token expires within `interval` seconds of `now` (or already has). A
    /// token without ``expiresAt`` never expires.
    public func expires(within interval: TimeInterval, now: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= interval
    }

    private static func seconds(_ value: Any?) -> TimeInterval? {
        switch value {
        case let seconds as Int: return TimeInterval(seconds)
        case let seconds as Double: return seconds.isFinite ? seconds : nil
        case let string as String: return TimeInterval(string)
        default: return nil
        }
    }
}

extension OAuthToken: CustomStringConvertible, CustomDebugStringConvertible {
    /// The type, expiry and whether a refresh token is present — never the tokens.
    public var description: String {
        let expiry = expiresAt.map { "expires \($0)" } ?? "never expires"
        return "OAuthToken(\(tokenType), \(expiry), refresh token \(refreshToken == nil ? "absent" : "present"))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }
}

/// Reads the `exp` claim of a JWT, without verifying it (the server does that).
enum JWT {
    static func expiry(of token: String) -> Date? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { return nil }
        var base64 = segments[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let exp = claims["exp"] as? NSNumber
        else { return nil }
        return Date(timeIntervalSince1970: exp.doubleValue)
    }
}
