import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a server said about a failure, read from its body: the OAuth `error` and
/// `error_description` (RFC 6749 §5.2), a problem's `title` and `detail` (RFC 9457), or a
/// common `message`/`error`/`detail` field; otherwise a short excerpt of the body.
enum ServerReason {
    /// The reason, redacted and short, or `nil` when the body is empty.
    ///
    /// A reason field is a message for people, so it keeps its words
    /// (`invalid_token: The access token has expired.`); only the secrets it may echo are
    /// hidden (``Redaction/redact(serverMessage:sentWith:)``). A body without one is quoted
    /// with every secret field hidden, as any body is.
    static func of(_ response: Response, redaction: Redaction) -> String? {
        let redact = { (text: String) in redaction.redact(serverMessage: text, sentWith: response.request) }
        if let reason = reasonField(in: response.data, redacting: redact) {
            return ErrorText.quote(ErrorText.clause(reason))
        }
        if let reason = challengeReason(of: response, redacting: redact) {
            return ErrorText.quote(ErrorText.clause(reason))
        }
        guard !response.data.isEmpty else { return nil }
        let contentType = response.response?.value(forHTTPHeaderField: "Content-Type")
        return "the body is " + ErrorText.excerpt(of: response.data, contentType: contentType, redaction: redaction)
    }

    /// The reason, each field redacted on its own, so that an `error` code never reads as
    /// the name of the `error_description` that follows it.
    private static func reasonField(in data: Data, redacting redact: (String) -> String) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        func field(_ value: Any?) -> String? { text(value).map(redact) }
        let code = field(object["error"])
        let explanation = field(object["error_description"]) ?? field(object["message"]) ?? field(object["detail"])
        if let code, let explanation { return "\(code): \(explanation)" }
        if let code { return code }
        if let nested = object["error"] as? [String: Any], let message = field(nested["message"]) { return message }
        if let title = field(object["title"]) {
            return explanation.map { "\(title): \($0)" } ?? title
        }
        return explanation
    }

    /// The `error` and `error_description` of a `WWW-Authenticate` challenge (RFC 6750 §3,
    /// RFC 9449 §7.1): how a resource server says why it refused a token or a DPoP proof
    /// (`invalid_dpop_proof: the proof's htu does not match`) when its body says nothing.
    private static func challengeReason(of response: Response, redacting redact: (String) -> String) -> String? {
        for challenge in AuthenticationChallenge.parse(wwwAuthenticateOf: response.response) {
            guard let code = text(challenge["error"]).map(redact) else { continue }
            let scheme = challenge.scheme
            if let explanation = text(challenge["error_description"]).map(redact) {
                return "\(scheme) \(code): \(explanation)"
            }
            return "\(scheme) \(code)"
        }
        return nil
    }

    /// The longest part of a field that is redacted, in characters: far more than the
    /// ``ErrorText/excerptLength`` a description quotes, so whatever is quoted was redacted
    /// whole, and a megabyte-long message costs no more than this.
    static let longestFieldRead = 2_000

    private static func text(_ value: Any?) -> String? {
        guard let string = value as? String else { return nil }
        let trimmed = String(string.prefix(longestFieldRead)).trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
