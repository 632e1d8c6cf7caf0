/// An HTTP request method, such as `GET` or `POST`.
///
/// Any method can be made with ``init(rawValue:)``; the common ones are constants.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method name as sent on the wire, such as `"GET"`.
    public let rawValue: String

    /// Creates a method from its wire name, such as `"PROPFIND"`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from a string literal, such as `"GET"`.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The method name.
    public var description: String { rawValue }

    /// `CONNECT`
    public static let connect: HTTPMethod = "CONNECT"
    /// `DELETE`
    public static let delete: HTTPMethod = "DELETE"
    /// `GET`
    public static let get: HTTPMethod = "GET"
    /// `HEAD`
    public static let head: HTTPMethod = "HEAD"
    /// `OPTIONS`
    public static let options: HTTPMethod = "OPTIONS"
    /// `PATCH`
    public static let patch: HTTPMethod = "PATCH"
    /// `POST`
    public static let post: HTTPMethod = "POST"
    /// `PUT`
    public static let put: HTTPMethod = "PUT"
    /// `QUERY`
    public static let query: HTTPMethod = "QUERY"
    /// `TRACE`
    public static let trace: HTTPMethod = "TRACE"

    /// Whether a request with this method may carry a `multipart/form-data` body, as in Moya:
    /// `POST`, `PUT`, `PATCH` and `CONNECT`.
    ///
    /// ```swift
    /// precondition(target.method.supportsMultipart, "\(target.method) cannot upload a form")
    /// ```
    public var supportsMultipart: Bool {
        self == .post || self == .put || self == .patch || self == .connect
    }

    /// Whether sending a request with this method twice has the same effect as sending it
    /// once (RFC 9110 §9.2.2): `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS` and `TRACE`.
    ///
    /// The one list behind ``RetryPolicy`` (which retries only idempotent requests unless a
    /// ``RetryableTarget`` says otherwise) and ``TransportRequest/isIdempotent``.
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": true
        default: false
        }
    }

    /// Whether ``URLEncoding/default`` puts parameters in the query string for this method
    /// (`GET`, `HEAD`, `DELETE`) rather than in the body.
    var encodesParametersInURL: Bool {
        self == .get || self == .head || self == .delete
    }
}
