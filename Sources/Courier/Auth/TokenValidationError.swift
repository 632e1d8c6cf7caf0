/// Why a token cannot be used: a field too long to send, empty, or holding what a header
/// cannot carry.
///
/// ``AuthSession`` refuses such a token wherever it comes from — ``AuthSession/signIn(_:)``
/// throws this error and stores nothing; a refresh or acquire closure that returns such a
/// token fails its waiters with ``AuthenticationError/refreshFailed(_:)`` carrying it, and the
/// stored token (with its refresh token) is kept. ``OAuthToken/init(response:receivedAt:)``
/// throws it inside ``CourierError/objectMapping(_:_:)``. See
/// ``OAuthToken/maximumTokenLength`` for the bounds.
///
/// Its description names the field and its size, never its value:
/// `the access_token is 1048576 bytes long, more than the 16384 bytes a token may have`.
public struct TokenValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field of ``OAuthToken``, by its name in a token response.
    public enum Field: String, Sendable, Equatable {
        /// ``OAuthToken/accessToken``.
        case accessToken = "access_token"
        /// ``OAuthToken/refreshToken``.
        case refreshToken = "refresh_token"
        /// ``OAuthToken/tokenType``.
        case tokenType = "token_type"
    }

    /// What is wrong with the field.
    public enum Problem: Sendable, Equatable {
        /// It is empty.
        case empty
        /// It has `length` bytes (UTF-8), more than `limit`.
        case tooLong(length: Int, limit: Int)
        /// It holds a control character (CR, LF, NUL, tab…), which cannot go into a header.
        case controlCharacter(Unicode.Scalar)
        /// The token type is not an HTTP token (RFC 9110 §11.1): it holds `character`.
        case notAToken(Unicode.Scalar)
    }

    /// The field that is wrong.
    public let field: Field
    /// What is wrong with it.
    public let problem: Problem

    /// Creates an error.
    public init(field: Field, problem: Problem) {
        self.field = field
        self.problem = problem
    }

    /// Which field is wrong and how, without its value.
    public var description: String {
        let name = field.rawValue
        switch problem {
        case .empty:
            return "the \(name) is empty"
        case .tooLong(let length, let limit):
            let kind = field == .tokenType ? "a token type" : "a token"
            return "the \(name) is \(length) bytes long, more than the \(limit) bytes \(kind) may have"
        case .controlCharacter(let scalar):
            return "the \(name) holds the control character \(Self.code(scalar)), which cannot go into a header"
        case .notAToken(let scalar):
            return "the \(name) holds \(Self.code(scalar)), which an HTTP authentication scheme cannot"
        }
    }

    /// `U+000A`.
    private static func code(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
