import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension NetworkLoggerPlugin {
    /// `request` as a `curl` command line that can be pasted into a shell, with its secrets
    /// redacted: every argument is single-quoted, the body is sent with `--data-raw`, and a
    /// body that is binary or longer than ``Configuration/maximumBodyLength`` is left out
    /// with a shell comment that says so.
    ///
    /// ```
    /// curl -X POST -H 'Authorization: <redacted>' -H 'Content-Type: application/json' --data-raw '{"name":"Ada"}' 'https://api.example.com/users'
    /// ```
    ///
    /// For a command line that replays the request as it was sent, secrets included, log
    /// with `Redaction.none` on your own machine only, never in a build that ships:
    ///
    /// ```swift
    /// #if DEBUG
    ///     let curlLogger = NetworkLoggerPlugin(
    ///         configuration: .init(logOptions: .formatRequestAscURL, redaction: .none))
    /// #endif
    /// ```
    public func cURL(for request: URLRequest) -> String {
        let redaction = configuration.redaction
        var arguments = ["curl"]
        let method = request.httpMethod ?? "GET"
        if method == "HEAD" {
            arguments.append("--head")
        } else if method != "GET" {
            arguments += ["-X", Self.shellQuoted(method)]
        }
        let headers = redaction.redact(headers: request.allHTTPHeaderFields ?? [:])
        for (name, value) in headers.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            arguments += ["-H", Self.shellQuoted("\(name): \(value)")]
        }
        var comment: String?
        if let body = request.httpBody, !body.isEmpty {
            // Redacted only as far as it could be shown (4 bytes per character at most).
            let limit = max(0, configuration.maximumBodyLength)
            let redacted = redaction.redact(
                body: body, contentType: request.value(forHTTPHeaderField: "Content-Type"),
                limit: limit <= (Int.max - 4) / 4 ? limit * 4 + 4 : nil)
            if redacted.isComplete, let text = String(data: redacted.data, encoding: .utf8), text.count <= limit {
                arguments += ["--data-raw", Self.shellQuoted(text)]
            } else {
                comment = "# request body of \(body.count) bytes not shown"
            }
        } else if request.httpBodyStream != nil {
            comment = "# streamed request body not shown"
        }
        let url = request.url.map { redaction.redact(url: $0) } ?? ""
        arguments.append(Self.shellQuoted(url))
        if let comment { arguments.append(comment) }
        return arguments.joined(separator: " ")
    }

    /// `text` in single quotes, with single quotes inside written as `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
