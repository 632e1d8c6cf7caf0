import Foundation

extension OAuthToken {
    /// Parses a token endpoint's ``Response``: the helper for a refresh or acquire closure.
    ///
    /// The body must be an RFC 6749 §5.1 answer (`access_token`, `refresh_token`,
    /// `token_type`, `expires_in`; see ``init(tokenResponse:receivedAt:)``). For another shape,
    /// use ``init(response:format:receivedAt:)`` with a ``TokenResponseFormat``.
    ///
    /// ```swift
    /// refresh: { token in
    ///     guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
    ///     return try OAuthToken(response: await authProvider.request(.refresh(token: refreshToken)))
    /// }
    /// ```
    ///
    /// - Throws: ``CourierError/statusCode(_:)`` for a non-2xx answer (so a 400
    ///   `invalid_grant` ends the session), ``CourierError/authentication(_:)`` with
    ///   ``AuthenticationError/invalidTokenResponse`` for a body that is not a token, or
    ///   ``CourierError/objectMapping(_:_:)`` with a ``TokenValidationError`` for a token that
    ///   cannot be used (a 1 MB `access_token`, a CR in it), which names the field and its
    ///   size. Thrown from a refresh closure, the last two fail the refresh and keep the
    ///   stored refresh token.
    public init(response: Response, receivedAt: Date = Date()) throws(CourierError) {
        try self.init(response: response, format: .oauth, receivedAt: receivedAt)
    }
}
