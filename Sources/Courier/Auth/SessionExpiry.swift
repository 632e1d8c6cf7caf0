import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why an ``AuthSession`` ended: what the token endpoint answered, or who ended it.
///
/// Read it from ``AuthSession/sessionExpiry`` when ``AuthEvent/sessionExpired`` arrives or a
/// request fails with ``AuthenticationError/sessionExpired``: a wrong client secret (401
/// `invalid_client`) and a revoked refresh token (400 `invalid_grant`) end the session alike,
/// and this tells them apart. It never holds a token: the URL and the server's text are
/// redacted as in every Courier description.
///
/// ```swift
/// for await event in session.events where event == .sessionExpired {
///     if let expiry = session.sessionExpiry { logger.notice("signed out: \(expiry)") }
///     await showLoginScreen()
/// }
/// ```
public struct SessionExpiry: Sendable, Equatable, CustomStringConvertible {
    /// Who or what ended the session.
    public enum Cause: Sendable, Equatable {
        /// The token endpoint's own origin rejected the refresh token: an answer that the
        /// session's ``SessionEndingRule`` says ends it (by default a 401, or a 400 with
        /// `invalid_grant`, `invalid_client`, `unauthorized_client` or no OAuth error code).
        case rejectedByTokenEndpoint
        /// The refresh closure threw ``AuthenticationError/sessionExpired``.
        case refreshClosure
        /// The token cannot be renewed (no refresh token, no `acquire` closure) and it
        /// expired, or the server rejected it.
        case notRenewable
        /// Another session sharing the store ended it (its refresh token was rejected there).
        case anotherSession
        /// The session is DPoP-bound and the key its tokens are bound to is lost: the stored
        /// token carries none, or the session's ``DPoPKeyFactory`` could not restore it. Tokens
        /// bound to a lost key are useless; the next sign-in gets a new key.
        case dpopKeyLost
    }

    /// Who or what ended the session.
    public let cause: Cause
    /// The token request that was rejected, `POST https://auth.example.com/oauth/token`, with
    /// any secret in the URL redacted; `nil` when no response is known.
    public let request: String?
    /// The token endpoint's status code.
    public let statusCode: Int?
    /// The OAuth `error` code of the answer (`invalid_grant`, `invalid_client` …).
    public let oauthError: String?
    /// The OAuth `error_description` of the answer, in its own words but with any secret it
    /// echoes hidden (a token-shaped value, the request's credentials), cut to 200 characters.
    public let oauthErrorDescription: String?
    /// When the session ended.
    public let date: Date

    /// Creates a reason.
    public init(
        cause: Cause, request: String? = nil, statusCode: Int? = nil, oauthError: String? = nil,
        oauthErrorDescription: String? = nil, date: Date
    ) {
        self.cause = cause
        self.request = request
        self.statusCode = statusCode
        self.oauthError = oauthError
        self.oauthErrorDescription = oauthErrorDescription
        self.date = date
    }

    /// `the token endpoint rejected the refresh token: POST https://auth.example.com/oauth/token
    /// answered 401 (invalid_client: Client authentication failed)`.
    public var description: String {
        switch cause {
        case .refreshClosure: return "the refresh closure threw AuthenticationError.sessionExpired"
        case .notRenewable:
            return "the token expired or was rejected, and it cannot be renewed (no refresh token, no acquire closure)"
        case .anotherSession: return "another session sharing the token store ended the session"
        case .dpopKeyLost:
            return
                "the DPoP key the tokens are bound to is lost (missing from the store, or the key factory could not restore it); sign in again to get a new key"
        case .rejectedByTokenEndpoint:
            var text = "the token endpoint rejected the refresh token"
            if let request { text += ": \(request)" }
            if let statusCode { text += (request == nil ? ": status " : " answered ") + "\(statusCode)" }
            let server = [oauthError, oauthErrorDescription].compactMap { $0 }.joined(separator: ": ")
            if !server.isEmpty { text += " (\(server))" }
            return text
        }
    }

    /// The reason for a token endpoint's `response`.
    static func rejected(by response: Response, date: Date) -> SessionExpiry {
        let redaction = Redaction.default
        var code: String?
        var explanation: String?
        // Messages for people: they keep their words, and only the secrets they may echo (a
        // token, the request's own credentials) are hidden, as in every Courier description.
        func message(_ value: Any?) -> String? {
            guard let text = value as? String, !text.isEmpty else { return nil }
            let field = String(text.prefix(ServerReason.longestFieldRead))
            return ErrorText.quote(ErrorText.clause(redaction.redact(serverMessage: field, sentWith: response.request)))
        }
        if let object = (try? JSONSerialization.jsonObject(with: response.data)) as? [String: Any] {
            code = message(object["error"])
            explanation = message(object["error_description"])
        }
        return SessionExpiry(
            cause: .rejectedByTokenEndpoint, request: ErrorText.request(of: response, redaction: redaction),
            statusCode: response.statusCode, oauthError: code, oauthErrorDescription: explanation, date: date)
    }
}
