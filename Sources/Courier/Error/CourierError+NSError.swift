import Foundation

/// Bridges ``CourierError`` to `NSError` as `MoyaError` does, so apps that log or report
/// errors through `NSError` (crash reporters, analytics, `localizedDescription`) see what
/// failed and why:
///
/// ```swift
/// let error = CourierError.statusCode(response) as NSError
/// error.domain                                  // "Courier.CourierError"
/// error.localizedDescription                    // "Status code 500 did not fall within…"
/// error.userInfo[NSUnderlyingErrorKey]          // the wrapped error, for wrapping cases
/// ```
///
/// The description is the redacted ``CourierError/description``; it never contains a token.
extension CourierError: CustomNSError {
    /// `"Courier.CourierError"` for every case.
    public static var errorDomain: String { "Courier.CourierError" }

    /// A code per case, stable across releases (new cases get new codes):
    /// 1 `jsonMapping`, 2 `stringMapping`, 3 `objectMapping`, 4 `encodableMapping`,
    /// 5 `statusCode`, 6 `underlying`, 7 `requestMapping`, 8 `parameterEncoding`,
    /// 9 `authentication`, 10 `cancelled`.
    public var errorCode: Int {
        switch self {
        case .jsonMapping: 1
        case .stringMapping: 2
        case .objectMapping: 3
        case .encodableMapping: 4
        case .statusCode: 5
        case .underlying: 6
        case .requestMapping: 7
        case .parameterEncoding: 8
        case .authentication: 9
        case .cancelled: 10
        }
    }

    /// `NSLocalizedDescriptionKey` with the ``description``, and `NSUnderlyingErrorKey` with
    /// the wrapped error for every case that wraps one (``underlyingError``).
    public var errorUserInfo: [String: Any] {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let underlyingError {
            userInfo[NSUnderlyingErrorKey] = underlyingError as NSError
        }
        return userInfo
    }
}
