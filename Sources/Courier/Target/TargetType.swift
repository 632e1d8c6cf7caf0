import Foundation

/// Describes one call of a service's API: where it goes, how it is sent and what it carries.
///
/// Model an API as an `enum` with one case per endpoint, exactly as with Moya:
///
/// ```swift
/// enum GitHub: TargetType {
///     case zen
///     case user(name: String)
///
///     var baseURL: URL { URL(string: "https://api.github.com")! }
///     var path: String {
///         switch self {
///         case .zen: "zen"
///         case .user(let name): "users/\(name)"
///         }
///     }
///     var method: HTTPMethod { .get }
///     var task: RequestTask { .requestPlain }
///     var headers: [String: String]? { ["Accept": "application/json"] }
/// }
/// ```
///
/// A Moya target moves over by renaming `Task` to ``RequestTask`` and `Method` to
/// ``HTTPMethod``.
///
/// ## Isolation
///
/// A target need not be `Sendable`, and its conformance may be isolated to an actor: in an app
/// target whose default isolation is `MainActor` (a new Xcode 26 app), the extension above
/// gives a main-actor-isolated conformance, and that is fine. A provider reads a target's
/// properties only on the actor that called ``Provider/request(_:)`` (the request functions
/// run on the caller's actor), and sends on only what it built from them — the ``Endpoint``
/// and the `URLRequest`. See <doc:Concurrency>.
///
/// Generic code that sends a target to another task, such as a task group that runs
/// `provider.request(target)` for many targets, says so with `T: TargetType & Sendable`.
public protocol TargetType {
    /// The base URL of the service, such as `https://api.example.com/v1`. It may carry a path
    /// and a query; ``path`` is appended to its path and its query is kept.
    var baseURL: URL { get }

    /// The path of this call relative to ``baseURL``, such as `users/42`. An empty path
    /// means the base URL itself. Leading and trailing slashes are handled.
    var path: String { get }

    /// The HTTP method of this call.
    var method: HTTPMethod { get }

    /// What the request carries (parameters, a body, a file) or where a download goes.
    var task: RequestTask { get }

    /// Headers to send with this call, if any.
    var headers: [String: String]? { get }

    /// Which status codes count as success. Other codes fail the request with
    /// ``CourierError/statusCode(_:)``. Defaults to ``ValidationType/none``.
    var validationType: ValidationType { get }

    /// The body a stub provider answers with for this call. Defaults to empty data.
    var sampleData: Data { get }

    /// How a signing plugin (``AuthPlugin``, `AccessTokenPlugin`) signs this call; `nil`
    /// never signs it (login and token endpoints, third-party hosts).
    ///
    /// You do not write it for `TargetType`: a target that conforms to
    /// ``AccessTokenAuthorizable`` (Moya's way) gives it there, and one that does not is
    /// signed with ``AuthorizationType/bearer``. It is a requirement here too so that a
    /// provider reads it as it reads ``path``, through the target's own conformance (which
    /// may be isolated to the main actor) rather than by a dynamic cast, which fails away
    /// from that actor.
    var authorizationType: AuthorizationType? { get }

    /// Whether sending this call twice has the same effect as sending it once: what a
    /// ``RetryPolicy`` and the transport (which never resends a non-idempotent request) go
    /// by. A ``RetryableTarget`` gives it there; otherwise it follows the method
    /// (``HTTPMethod/isIdempotent``).
    var isIdempotent: Bool { get }

    /// A low-cardinality name for this call, for telemetry: the span name is
    /// `{method} {route}` and OpenTelemetry's `url.template` is the route. Never the raw path
    /// with its ids, so that every `GET users/{name}` lands in one series.
    ///
    /// Defaults to the type and case name (`GitHub.user`); give it the path template when
    /// your dashboards want one:
    ///
    /// ```swift
    /// var route: String {
    ///     switch self {
    ///     case .user: "users/{name}"
    ///     case .zen: "zen"
    ///     }
    /// }
    /// ```
    var route: String { get }
}

extension TargetType {
    /// No status code validation, as in Moya.
    public var validationType: ValidationType { .none }

    /// Empty sample data.
    public var sampleData: Data { Data() }

    /// The target's ``AccessTokenAuthorizable/authorizationType`` when it conforms (in
    /// another module, say, where the compiler cannot see the property), else
    /// ``AuthorizationType/bearer``.
    public var authorizationType: AuthorizationType? {
        if let authorizable = self as? any AccessTokenAuthorizable {
            return authorizable.authorizationType
        }
        return .bearer
    }

    /// The type and case name, such as `GitHub.user` (the type name alone for a target that
    /// is not an enum, or that describes itself with `CustomStringConvertible`).
    public var route: String {
        TargetRoute.name(of: self)
    }

    /// The target's ``RetryableTarget/isIdempotent`` when it conforms, else its method's
    /// ``HTTPMethod/isIdempotent``.
    public var isIdempotent: Bool {
        if let retryable = self as? any RetryableTarget {
            return retryable.isIdempotent
        }
        return method.isIdempotent
    }
}
