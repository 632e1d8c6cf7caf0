import Foundation

/// A target that wraps any other target, so one provider can serve several API enums.
///
/// ```swift
/// let provider = Provider<MultiTarget>()
/// let response = try await provider.request(MultiTarget(GitHub.zen))
/// ```
public enum MultiTarget: TargetType {
    /// The wrapped target.
    case target(any TargetType)

    /// Wraps `target`.
    public init(_ target: any TargetType) {
        self = .target(target)
    }

    /// The wrapped target.
    public var target: any TargetType {
        switch self {
        case .target(let target): target
        }
    }

    /// The wrapped target's base URL.
    public var baseURL: URL { target.baseURL }
    /// The wrapped target's path.
    public var path: String { target.path }
    /// The wrapped target's method.
    public var method: HTTPMethod { target.method }
    /// The wrapped target's task.
    public var task: RequestTask { target.task }
    /// The wrapped target's headers.
    public var headers: [String: String]? { target.headers }
    /// The wrapped target's validation.
    public var validationType: ValidationType { target.validationType }
    /// The wrapped target's sample data.
    public var sampleData: Data { target.sampleData }
}

extension MultiTarget: AccessTokenAuthorizable {
    /// The wrapped target's authorization type (``AuthorizationType/bearer`` if it does not
    /// say).
    public var authorizationType: AuthorizationType? { target.authorizationType }
}

extension MultiTarget {
    /// Whether the wrapped target may be sent twice.
    public var isIdempotent: Bool { target.isIdempotent }
}
