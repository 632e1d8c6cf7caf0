import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Decides whether a refresh closure's error means "the refresh token is dead" (end the
/// session) or "try again later" (keep it).
enum RefreshFailureClassifier {
    /// OAuth error codes (RFC 6749 §5.2) that mean the credentials themselves are rejected.
    static let rejectionCodes: Set<String> = ["invalid_grant", "invalid_client", "unauthorized_client"]

    /// What a refresh closure's error means.
    enum Verdict: Equatable {
        /// The session is over, for this reason.
        case rejected(SessionExpiry)
        /// It may pass: keep the refresh token.
        case transient
    }

    static func classify(_ error: any Error, date: Date) -> Verdict {
        switch error {
        case AuthenticationError.sessionExpired:
            return .rejected(SessionExpiry(cause: .refreshClosure, date: date))
        case let error as CourierError:
            if case .authentication(.sessionExpired) = error {
                return .rejected(SessionExpiry(cause: .refreshClosure, date: date))
            }
            guard let response = error.response, isRejection(response) else { return .transient }
            return .rejected(.rejected(by: response, date: date))
        default:
            return .transient
        }
    }

    static func isRejection(_ error: any Error) -> Bool {
        classify(error, date: Date(timeIntervalSince1970: 0)) != .transient
    }

    /// 401 always; 400 when its OAuth error code is a credential rejection or when it has
    /// none (most servers answer a dead refresh token with a bare 400) — but only from the
    /// token endpoint's own origin, and never an HTML page.
    ///
    /// A token request redirected to another origin (an SSO error page, a captive portal) was
    /// answered by a server that never saw the refresh token: its 401 or 400 says nothing about
    /// it. An HTML page is not an OAuth answer either (a proxy's or a gateway's error page).
    static func isRejection(_ response: Response) -> Bool {
        if let asked = response.request?.url, let answeredBy = response.response?.url,
            CrossOriginRedirect.isCrossOrigin(from: asked, to: answeredBy)
        {
            return false
        }
        switch response.statusCode {
        case 401: return true
        case 400:
            guard let object = try? JSONSerialization.jsonObject(with: response.data) as? [String: Any] else {
                return !isPage(response)
            }
            guard let code = object["error"] as? String else { return true }
            return rejectionCodes.contains(code)
        default: return false
        }
    }

    /// Whether the body is an HTML page (by its `Content-Type`, or by its first character).
    private static func isPage(_ response: Response) -> Bool {
        if let type = response.response?.value(forHTTPHeaderField: "Content-Type")?.lowercased(),
            type.contains("html")
        {
            return true
        }
        let first = response.data.first { !" \t\r\n".utf8.contains($0) }
        return first == UInt8(ascii: "<")
    }
}
