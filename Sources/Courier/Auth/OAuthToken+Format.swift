import Foundation

extension OAuthToken {
    /// Parses a token endpoint's JSON answer whose fields are where `format` says, with every
    /// check ``init(tokenResponse:receivedAt:)`` makes (size bounds, usable lifetimes).
    ///
    /// ```swift
    /// let token = try OAuthToken(tokenResponse: body, format: .camelCase, receivedAt: Date())
    /// ```
    ///
    /// - Throws: ``AuthenticationError/invalidTokenResponse`` when the body is not a JSON
    ///   object with a string at `format`'s access token key path, or when the token cannot be
    ///   used (``validate()``).
    public init(tokenResponse: Data, format: TokenResponseFormat, receivedAt: Date) throws(AuthenticationError) {
        do throws(TokenResponseFailure) {
            try self.init(parsing: tokenResponse, format: format, receivedAt: receivedAt)
        } catch {
            throw .invalidTokenResponse
        }
    }

    /// Parses a token endpoint's ``Response`` whose fields are where `format` says: the one
    /// line a refresh closure needs for a backend that does not speak OAuth's field names.
    ///
    /// ```swift
    /// refresh: { token in
    ///     guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
    ///     let response = try await authProvider.request(.refresh(token: refreshToken))
    ///     return try OAuthToken(response: response, format: .camelCase)
    /// }
    /// ```
    ///
    /// - Throws: what ``init(response:receivedAt:)`` throws: ``CourierError/statusCode(_:)``
    ///   for a non-2xx answer, ``AuthenticationError/invalidTokenResponse`` (inside
    ///   ``CourierError/authentication(_:)``) for a body without an access token where
    ///   `format` says, ``CourierError/objectMapping(_:_:)`` with a ``TokenValidationError``
    ///   for a token that cannot be used.
    public init(response: Response, format: TokenResponseFormat, receivedAt: Date = Date()) throws(CourierError) {
        guard (200..<300).contains(response.statusCode) else {
            throw .statusCode(response.rejected(accepting: 200..<300))
        }
        do throws(TokenResponseFailure) {
            try self.init(parsing: response.data, format: format, receivedAt: receivedAt)
        } catch {
            switch error {
            case .notATokenResponse: throw .authentication(.invalidTokenResponse)
            case .unusable(let problem): throw .objectMapping(problem, response)
            }
        }
    }
}
