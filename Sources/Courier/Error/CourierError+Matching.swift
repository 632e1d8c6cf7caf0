import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Equality and the questions a test asks of an error; see `==` for what equality means.
extension CourierError: Equatable {
    /// Whether both are the same case with equal payloads, so a test can expect an error
    /// exactly:
    ///
    /// ```swift
    /// await #expect(throws: CourierError.authentication(.sessionExpired)) {
    ///     try await provider.request(.profile)
    /// }
    /// ```
    ///
    /// - A ``Response`` compares with ``Response``'s own `==`: status code, body, HTTP response
    ///   and downloaded file; not the request.
    /// - An underlying error (`any Error`) is equal to another of the same type when that type's
    ///   `==` says so (``CourierError``, ``AuthenticationError``, `URLError`, `NSError`…); for a
    ///   type that is not `Equatable`, when it is the same class instance, or a value that prints
    ///   the same (`String(reflecting:)`: a `DecodingError` with the same coding path and
    ///   message, say).
    ///
    /// Equality is exact: a `URLError` from the network carries the failing URL in its user info,
    /// so it is not equal to `URLError(.timedOut)`. To ask what kind of failure an error is, use
    /// ``statusCode``, ``isSessionExpired``, ``isCancelled``, ``authenticationError`` or
    /// ``urlError``, or match a case: `if case .objectMapping = error`.
    public static func == (lhs: CourierError, rhs: CourierError) -> Bool {
        switch (lhs, rhs) {
        case (.jsonMapping(let left), .jsonMapping(let right)),
            (.stringMapping(let left), .stringMapping(let right)),
            (.statusCode(let left), .statusCode(let right)):
            left == right
        case (.objectMapping(let leftError, let left), .objectMapping(let rightError, let right)):
            left == right && ErrorEquality.equal(leftError, rightError)
        case (.encodableMapping(let left), .encodableMapping(let right)),
            (.parameterEncoding(let left), .parameterEncoding(let right)):
            ErrorEquality.equal(left, right)
        case (.underlying(let leftError, let left), .underlying(let rightError, let right)):
            left == right && ErrorEquality.equal(leftError, rightError)
        case (.requestMapping(let left), .requestMapping(let right)): left == right
        case (.authentication(let left), .authentication(let right)): left == right
        case (.cancelled, .cancelled): true
        case (.jsonMapping, _), (.stringMapping, _), (.statusCode, _), (.objectMapping, _), (.encodableMapping, _),
            (.parameterEncoding, _), (.underlying, _), (.requestMapping, _), (.authentication, _), (.cancelled, _):
            false
        }
    }
}

extension CourierError {
    /// The status code of the response this error came with, or `nil` when none came (a
    /// network failure, a cancelled request, a token that could not be refreshed).
    ///
    /// ```swift
    /// let error = await #expect(throws: CourierError.self) {
    ///     try await provider.request(.user(name: "nobody"))
    /// }
    /// #expect(error?.statusCode == 404)
    /// ```
    public var statusCode: Int? { response?.statusCode }

    /// Whether the session is over and the user must sign in again: the refresh token was
    /// rejected (``AuthenticationError/sessionExpired``), also when a plugin's error wraps it.
    public var isSessionExpired: Bool {
        authenticationError?.isSessionExpired == true
    }

    /// The ``AuthenticationError`` behind this error, if signing or refreshing the token
    /// failed (``authentication(_:)``, or an ``underlying(_:_:)`` error a plugin threw).
    public var authenticationError: AuthenticationError? {
        switch self {
        case .authentication(let error): error
        case .underlying(let error as AuthenticationError, _): error
        case .underlying(let error as CourierError, _): error.authenticationError
        default: nil
        }
    }

    /// The `URLError` behind this error, if the network failed (a time-out, no connection, a
    /// lost connection…), also when a token refresh failed that way.
    ///
    /// ```swift
    /// #expect(error.urlError?.code == .notConnectedToInternet)
    /// ```
    public var urlError: URLError? {
        switch self {
        case .underlying(let error as URLError, _): error
        case .underlying(let error as CourierError, _): error.urlError
        case .authentication(.refreshFailed(let error as URLError)): error
        case .authentication(.refreshFailed(let error as CourierError)): error.urlError
        default: nil
        }
    }
}
