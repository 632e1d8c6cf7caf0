/// A target that says whether, and how, its requests are signed with an access token.
///
/// ``AuthPlugin`` (and the bundled `AccessTokenPlugin`) read ``authorizationType``:
/// `nil` means "never sign this request" — use it for the login and token endpoints and for
/// third-party hosts. A target that does not conform is signed as ``AuthorizationType/bearer``.
///
/// ```swift
/// extension MyAPI: AccessTokenAuthorizable {
///     var authorizationType: AuthorizationType? {
///         switch self {
///         case .login: nil
///         default: .bearer
///         }
///     }
/// }
/// ```
public protocol AccessTokenAuthorizable {
    /// How requests for this target are signed, or `nil` to send them unsigned.
    var authorizationType: AuthorizationType? { get }
}

/// The scheme in an `Authorization` header.
public enum AuthorizationType: Sendable, Equatable {
    /// `Authorization: Bearer <token>`
    case bearer
    /// `Authorization: Basic <token>`
    case basic
    /// `Authorization: <scheme> <token>` with a custom scheme.
    case custom(String)

    /// The scheme as written in the header, such as `"Bearer"`.
    public var value: String {
        switch self {
        case .bearer: "Bearer"
        case .basic: "Basic"
        case .custom(let scheme): scheme
        }
    }
}

extension TargetType {
    /// How this target is signed: ``TargetType/authorizationType``.
    package var resolvedAuthorizationType: AuthorizationType? { authorizationType }
}
