import Foundation

extension TokenStoreCoordinator {
    /// ``read()``, refusing a stored token that cannot be sent (``OAuthToken/validate()``: a
    /// 20 MB access token, a CR in it, an empty one…): whatever store it comes from — a file,
    /// the Keychain, a database row, an app's own store or coordinator — the session checks
    /// it here, where it loads or adopts a token, so that nothing it could not send is ever
    /// kept or sent.
    ///
    /// - Throws: what ``read()`` throws, or the ``TokenValidationError`` naming the field and
    ///   its size (never its value).
    nonisolated(nonsending) func checkedRead() async throws -> StoredToken {
        let stored = try await read()
        if let token = stored.token { try token.validate() }
        return stored
    }
}
