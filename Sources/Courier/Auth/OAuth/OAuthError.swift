import Foundation

/// Why a sign-in step failed. Descriptions name the step and the reason, and never contain a
/// code, a PKCE verifier, a client secret, an assertion or a token (a callback URL is shown
/// without its query).
public enum OAuthError: Error, Sendable {
    /// The authorization server's metadata names no such endpoint (`token_endpoint`,
    /// `authorization_endpoint`, …).
    case missingEndpoint(String)
    /// A URL Courier would send a secret to is neither `https` nor `http` on loopback.
    case insecureEndpoint(URL)
    /// The callback did not arrive at the `redirect_uri` of the request (compared exactly:
    /// scheme, host, port and path).
    case redirectMismatch(expected: URL, received: URL)
    /// The callback's `state` is not the request's: a forged or stale answer (RFC 6749 §10.12).
    case stateMismatch
    /// The callback's `iss` names another authorization server (RFC 9207): a mix-up attack.
    case issuerMismatch(expected: URL, found: String)
    /// The server says it sends `iss` (`authorization_response_iss_parameter_supported`) but the
    /// callback has none (RFC 9207 §2.4).
    case missingIssuer(expected: URL)
    /// The authorization server answered with an error (`access_denied`, `invalid_scope`, …).
    case authorizationDenied(error: String, description: String?)
    /// The callback carries neither a `code` nor an `error`.
    case missingCode
    /// The token endpoint refused or failed the `grant` request; the ``CourierError`` says how
    /// (its response carries the server's `error`).
    case tokenRequestFailed(grant: String, CourierError)
    /// The loopback listener could not start or read its callback.
    case listenerFailed(reason: String)
    /// No callback with the right `state` reached the loopback listener in time.
    case listenerTimedOut(seconds: TimeInterval)
    /// The task waiting for the callback was cancelled.
    case cancelled
}

extension OAuthError: CustomStringConvertible {
    /// What failed and why; no secret.
    public var description: String {
        let redaction = Redaction.default
        func show(_ url: URL) -> String { Self.withoutQuery(url, redaction: redaction) }
        switch self {
        case .missingEndpoint(let field):
            return "OAuth sign-in needs the authorization server's \(field), and its metadata names none"
        case .insecureEndpoint(let url):
            return "OAuth sign-in refused \(show(url)): it must be https (plain http only on loopback)"
        case .redirectMismatch(let expected, let received):
            return "OAuth sign-in refused the callback at \(show(received)): it was sent to \(show(expected))"
        case .stateMismatch:
            return
                "OAuth sign-in refused the callback: its state is not the one this sign-in sent (a forged or stale answer)"
        case .issuerMismatch(let expected, let found):
            return "OAuth sign-in refused the callback: it comes from the issuer "
                + "\(ErrorText.quote(redaction.redact(text: found))), not \(show(expected)) (RFC 9207)"
        case .missingIssuer(let expected):
            return
                "OAuth sign-in refused the callback: \(show(expected)) says it sends iss, and the callback has none (RFC 9207)"
        case .authorizationDenied(let error, let description):
            let detail = description.map { ": \(ErrorText.quote(redaction.redact(text: $0)))" } ?? ""
            return "OAuth sign-in was refused by the authorization server with "
                + "\(ErrorText.quote(redaction.redact(text: error)))\(detail)"
        case .missingCode:
            return "OAuth sign-in refused the callback: it carries neither a code nor an error"
        case .tokenRequestFailed(let grant, let error):
            return "OAuth \(grant) token request failed: \(ErrorText.describe(error, redaction: redaction))"
        case .listenerFailed(let reason):
            return "OAuth loopback listener failed: \(reason)"
        case .listenerTimedOut(let seconds):
            return "OAuth sign-in timed out: no callback reached the loopback listener within \(Int(seconds)) s"
        case .cancelled:
            return "OAuth sign-in was cancelled"
        }
    }

    /// `http://127.0.0.1:53211/callback`: the URL without its query and fragment, where a
    /// code and a state travel.
    static func withoutQuery(_ url: URL, redaction: Redaction) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "a URL" }
        components.query = nil
        components.fragment = nil
        return redaction.redact(urlString: components.string ?? "a URL")
    }
}
