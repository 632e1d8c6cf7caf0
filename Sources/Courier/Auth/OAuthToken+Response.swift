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
    ///   `invalid_grant` ends the session), ``CourierError/authentication(_:)`` with
    ///   ``AuthenticationError/invalidTokenResponse`` for a body that is not a token, or
    ///   ``CourierError/objectMapping(_:_:)`` with a ``TokenValidationError`` for a token that
    ///   cannot be used (a 1 MB `access_token`, a CR in it), which names the field and its
    ///   size. Thrown from a refresh closure, the last two fail the refresh and keep the
    ///   stored refresh token.
    public init(response: Response, receivedAt: Date = Date()) throws(CourierError) {
        guard (200..<300).contains(response.statusCode) else {
            throw .statusCode(response.rejected(accepting: 200..<300))
        }
        do throws(TokenResponseFailure) {
            try self.init(parsing: response.data, receivedAt: receivedAt)
        } catch {
            switch error {
            case .notATokenResponse: throw .authentication(.invalidTokenResponse)
            case .unusable(let problem): throw .objectMapping(problem, response)
            }
        }
    }
}
