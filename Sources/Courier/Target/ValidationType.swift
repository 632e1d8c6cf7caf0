/// Which HTTP status codes count as success for a target.
///
/// A response whose code is not accepted fails with ``CourierError/statusCode(_:)``, which
/// carries the ``Response``.
public enum ValidationType: Sendable, Equatable {
    /// Every status code is accepted (the default, as in Moya).
    case none
    /// Only 2xx codes are accepted.
    case successCodes
    /// 2xx and 3xx codes are accepted.
    case successAndRedirectCodes
    /// Only the given codes are accepted.
    case customCodes([Int])

    /// The accepted status codes; empty for ``none``, which accepts every code.
    public var statusCodes: [Int] {
        switch self {
        case .none: []
        case .successCodes: Array(200..<300)
        case .successAndRedirectCodes: Array(200..<400)
        case .customCodes(let codes): codes
        }
    }

    /// Whether `statusCode` passes this validation.
    public func accepts(_ statusCode: Int) -> Bool {
        switch self {
        case .none: true
        case .successCodes: (200..<300).contains(statusCode)
        case .successAndRedirectCodes: (200..<400).contains(statusCode)
        case .customCodes(let codes): codes.contains(statusCode)
        }
    }
}
