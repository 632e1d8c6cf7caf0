import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a server said about a failure, read from its body: the OAuth `error` and
/// `error_description` (RFC 6749 §5.2), a problem's `title` and `detail` (RFC 9457), or a
/// common `message`/`error`/`detail` field; otherwise a short excerpt of the body.
enum ServerReason {
    /// The reason, redacted and short, or `nil` when the body is empty.
    static func of(_ response: Response, redaction: Redaction) -> String? {
        guard !response.data.isEmpty else { return nil }
        if let reason = reasonField(in: response.data) {
            return ErrorText.quote(ErrorText.clause(redaction.redact(text: reason)))
        }
        let contentType = response.response?.value(forHTTPHeaderField: "Content-Type")
        return "the body is " + ErrorText.excerpt(of: response.data, contentType: contentType, redaction: redaction)
    }

    private static func reasonField(in data: Data) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        let code = text(object["error"])
        let explanation = text(object["error_description"]) ?? text(object["message"]) ?? text(object["detail"])
        if let code, let explanation { return "\(code): \(explanation)" }
        if let code { return code }
        if let nested = object["error"] as? [String: Any], let message = text(nested["message"]) { return message }
        if let title = text(object["title"]) {
            return explanation.map { "\(title): \($0)" } ?? title
        }
        return explanation
    }

    private static func text(_ value: Any?) -> String? {
        guard let string = value as? String else { return nil }
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
