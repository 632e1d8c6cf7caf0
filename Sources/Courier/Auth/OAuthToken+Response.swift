import Foundation

extension OAuthToken {
    /// Parses a token endpoint's ``Response``: the helper for a refresh or acquire closure.
    ///
    /// ```swift
    /// refresh: { token in
    ///     guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
    ///     return try OAuthToken(response: await authProvider.request(.refresh(token: refreshToken)))
    /// }
    /// ```
    ///
    /// - Throws: ``CourierError/statusCode(_:)`` for a non-2xx answer (so a 400
    ///   `invalid_grant` ends the session), or ``CourierError/authentication(_:)`` with
    ///   ``AuthenticationError/invalidTokenResponse`` for a body that is not a token.
    public init(response: Response, receivedAt: Date = Date()) throws(CourierError) {
        guard (200..<300).contains(response.statusCode) else {
            throw .statusCode(response.rejected(accepting: 200..<300))
        }
        do {
            try self.init(tokenResponse: response.data, receivedAt: receivedAt)
        } catch {
            throw .authentication(error)
        }
    }
}
