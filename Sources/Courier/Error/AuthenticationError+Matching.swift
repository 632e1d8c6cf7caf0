// Equality and the questions a test asks of an error; see `==` for what equality means.
extension AuthenticationError: Equatable {
    /// Whether both are the same case with equal payloads; the errors that
    /// ``refreshFailed(_:)`` and ``storeUnavailable(_:)`` carry compare as ``CourierError``'s
    /// underlying errors do (the same type, and equal by its `==`, or the same instance or
    /// printed value when it has none).
    ///
    /// ```swift
    /// await #expect(throws: AuthenticationError.sessionExpired) {
    ///     try await session.validToken()
    /// }
    /// ```
    public static func == (lhs: AuthenticationError, rhs: AuthenticationError) -> Bool {
        switch (lhs, rhs) {
        case (.missingCredential, .missingCredential), (.sessionExpired, .sessionExpired),
            (.excessiveRefresh, .excessiveRefresh), (.invalidTokenResponse, .invalidTokenResponse),
            (.cancelled, .cancelled):
            true
        case (.refreshFailed(let left), .refreshFailed(let right)),
            (.storeUnavailable(let left), .storeUnavailable(let right)):
            ErrorEquality.equal(left, right)
        case (.missingCredential, _), (.sessionExpired, _), (.refreshFailed, _), (.excessiveRefresh, _),
            (.invalidTokenResponse, _), (.cancelled, _), (.storeUnavailable, _):
            false
        }
    }
}

extension AuthenticationError {
    /// Whether the session is over and the user must sign in again (``sessionExpired``).
    public var isSessionExpired: Bool {
        if case .sessionExpired = self { return true }
        return false
    }

    /// Whether the task waiting for the token was cancelled (``cancelled``).
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }
}
