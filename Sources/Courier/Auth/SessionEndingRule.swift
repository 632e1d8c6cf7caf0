import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which answers of the token endpoint mean "this refresh token is dead": the answers after
/// which a failed refresh ends an ``AuthSession``.
///
/// The refresh closure reports the token endpoint's answer by throwing a ``CourierError``
/// that carries the ``Response`` (``OAuthToken/init(response:receivedAt:)`` throws
/// ``CourierError/statusCode(_:)`` for any non-2xx answer). The session asks its rule about
/// that response. Two answers never end a session, whatever the rule says, and a rule is
/// never asked about them: one from another origin than the token request's (a redirect to an
/// SSO page or a captive portal, which never saw the refresh token), and an HTML page (a
/// proxy's or a gateway's error page is no verdict on a token).
///
/// ``oauth``, the default, is the rule stated in <doc:TokenRefresh#When-a-failed-refresh-ends-the-session>.
/// A backend with an error envelope of its own says which of its answers mean a dead
/// refresh token with ``custom(_:)``:
///
/// ```swift
/// let session = AuthSession(
///     store: store,
///     refresh: refreshToken,
///     sessionEndingRule: .custom { response in
///         // {"errorCode": "REFRESH_TOKEN_EXPIRED"} or {"errorCode": "REFRESH_TOKEN_REVOKED"}
///         let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: response.data)
///         return envelope?.errorCode.hasPrefix("REFRESH_TOKEN_") ?? false
///     })
/// ```
///
/// Whatever the rule, a refresh closure that throws ``AuthenticationError/sessionExpired``
/// ends the session, and an error without a response (the network, a time-out) never does.
public struct SessionEndingRule: Sendable {
    /// Says whether an answer of the token endpoint means the refresh token is dead. It runs
    /// where it was written, as ``AuthSession/RefreshClosure`` does: one written in main-actor
    /// code (the default in a new app target) runs on the main actor, so it may decode the
    /// app's own main-actor types.
    public typealias Decision = @isolated(any) @Sendable (Response) async -> Bool

    /// The app's decision; `nil` for ``oauth``.
    private let decision: Decision?

    /// Whether this is ``oauth``, which sessions apply without wrapping their refresh closure.
    var isOAuth: Bool { decision == nil }

    private init(decision: Decision?) {
        self.decision = decision
    }

    /// OAuth's rule (RFC 6749 §5.2): a 401 ends the session; a 400 ends it when its OAuth
    /// `error` is `invalid_grant`, `invalid_client` or `unauthorized_client`, or when it has no
    /// OAuth `error` at all (an empty 400, `{"errorCode":"EXPIRED"}`, plain text) — how most
    /// token endpoints that are not quite OAuth answer a dead refresh token. A 400 with another
    /// OAuth code (`invalid_request`, `invalid_scope`, `unsupported_grant_type`) says the
    /// request was wrong, not the token, and every other status (403, 404, 429, 5xx) may pass:
    /// they keep the refresh token.
    public static let oauth = SessionEndingRule(decision: nil)

    /// Your backend's rule: `endsSession` returns `true` for an answer of the token endpoint
    /// that means the refresh token is dead. It is asked about every failed refresh whose error
    /// carries a response, except an answer from another origin or an HTML page (never a
    /// logout), and it runs where it was written (see ``Decision``). To add to OAuth's rule
    /// rather than replace it:
    ///
    /// ```swift
    /// .custom { response in await SessionEndingRule.oauth.endsSession(after: response) || response.statusCode == 403 }
    /// ```
    public static func custom(
        // Inheriting the caller's isolation is what lets an app's closure, written in
        // main-actor code, decode the app's main-actor types (as `Task.init` does).
        @_inheritActorContext _ endsSession: @escaping Decision
    ) -> SessionEndingRule {
        SessionEndingRule(decision: endsSession)
    }

    /// Whether the token endpoint's `response` to a refresh ends the session under this rule,
    /// the two answers that never do (another origin, an HTML page) included.
    public func endsSession(after response: Response) async -> Bool {
        guard Self.mayEndSession(response) else { return false }
        guard let decision else { return Self.oauthEndsSession(response) }
        return await decision(response)
    }

    /// ``oauth``'s verdict on `response`, without a suspension: what a session without a rule
    /// of its own applies.
    static func oauthEndsSession(after response: Response) -> Bool {
        mayEndSession(response) && oauthEndsSession(response)
    }

    /// Not from another origin than the token request's, and not an HTML page.
    private static func mayEndSession(_ response: Response) -> Bool {
        if let asked = response.request?.url, let answeredBy = response.response?.url,
            CrossOriginRedirect.isCrossOrigin(from: asked, to: answeredBy)
        {
            return false
        }
        return !isPage(response)
    }

    private static func oauthEndsSession(_ response: Response) -> Bool {
        switch response.statusCode {
        case 401: return true
        case 400:
            guard let object = try? JSONSerialization.jsonObject(with: response.data) as? [String: Any],
                let code = object["error"] as? String
            else { return true }
            return oauthRejectionCodes.contains(code)
        default: return false
        }
    }

    /// OAuth error codes (RFC 6749 §5.2) that mean the credentials themselves are rejected.
    static let oauthRejectionCodes: Set<String> = ["invalid_grant", "invalid_client", "unauthorized_client"]

    /// Whether the body is an HTML page (by its `Content-Type`, or by its first character).
    static func isPage(_ response: Response) -> Bool {
        if let type = response.response?.value(forHTTPHeaderField: "Content-Type")?.lowercased(),
            type.contains("html")
        {
            return true
        }
        let first = response.data.first { !" \t\r\n".utf8.contains($0) }
        return first == UInt8(ascii: "<")
    }
}
