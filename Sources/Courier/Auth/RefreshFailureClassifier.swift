import Foundation

/// Decides whether a refresh closure's error means "the refresh token is dead" (end the
/// session) or "try again later" (keep it).
enum RefreshFailureClassifier {
    /// OAuth error codes (RFC 6749 §5.2) that mean the credentials themselves are rejected.
    static let rejectionCodes: Set<String> = ["invalid_grant", "invalid_client", "unauthorized_client"]

    static func isRejection(_ error: any Error) -> Bool {
        switch error {
        case AuthenticationError.sessionExpired:
            return true
        case let error as CourierError:
            if case .authentication(.sessionExpired) = error { return true }
            guard let response = error.response else { return false }
            return isRejection(response)
        default:
            return false
        }
    }

    /// 401 always; 400 when its OAuth error code is a credential rejection or when it has
    /// none (most servers answer a dead refresh token with a bare 400).
    static func isRejection(_ response: Response) -> Bool {
        switch response.statusCode {
        case 401: return true
        case 400:
            guard let object = try? JSONSerialization.jsonObject(with: response.data) as? [String: Any],
                let code = object["error"] as? String
            else { return true }
            return rejectionCodes.contains(code)
        default: return false
        }
    }
}
