import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The pieces Courier's error descriptions are built from: sentences that end once, the
/// request in a few words, a body in a few words. Everything that came from outside
/// (URLs, bodies, other errors' texts) passes through a ``Redaction`` here.
enum ErrorText {
    /// The longest body excerpt or server message quoted, in characters.
    static let excerptLength = 200

    /// `text` as a clause to nest in another sentence: trimmed, without its final full stop.
    static func clause(_ text: String) -> String {
        var result = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        while let last = result.last, last == "." || last == " " {
            // An ellipsis is part of the text, not its end.
            if result.hasSuffix("...") { break }
            result = result.dropLast()
        }
        return String(result)
    }

    /// `text` as a sentence: a capital first letter and exactly one full stop at the end.
    static func sentence(_ text: String) -> String {
        let body = clause(text)
        guard let first = body.first else { return body }
        let capitalised = first.uppercased() + body.dropFirst()
        if let last = capitalised.last, "?!…".contains(last) || capitalised.hasSuffix("...") {
            return capitalised
        }
        return capitalised + "."
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ items: [String], empty: String, conjunction: String = "or") -> String {
        switch items.count {
        case 0: empty
        case 1: items[0]
        default: items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
        }
    }

    /// Another error's description, redacted, as a clause to follow a colon: `Refreshing …
    /// failed.` becomes `refreshing … failed`; `GET https://…` and `OAuth …` keep their case.
    static func describe(_ error: any Error, redaction: Redaction) -> String {
        let text: String
        if let error = error as? CourierError {
            text = error.description(redactedBy: redaction)
        } else if let error = error as? AuthenticationError {
            text = error.description(redactedBy: redaction)
        } else if let error = error as? URLError {
            text = NetworkFailure.describe(error, redaction: redaction)
        } else if let error = error as? DecodingError {
            text = DecodingFailure.describe(error)
        } else if let error = error as? any OwnWordsError {
            // Courier's own words, with file names and the system's reason ("No space left on
            // device"), which must not be hidden because a path contains the word "token".
            text = error.description
        } else {
            text = redaction.redact(text: String(describing: error))
        }
        return lowercasingFirstWord(clause(text))
    }

    /// `The disk is full` → `the disk is full`; a word whose second letter is a capital
    /// (`GET`, `URLError`, `OAuth`) or a one-letter word is left alone.
    static func lowercasingFirstWord(_ text: String) -> String {
        var characters = text.makeIterator()
        guard let first = characters.next(), first.isUppercase, let second = characters.next(),
            second.isLetter, second.isLowercase
        else { return text }
        return first.lowercased() + text.dropFirst()
    }

    // MARK: Requests

    /// `GET https://api.example.com/users?page=2`, the URL redacted.
    static func request(method: String?, url: URL?, redaction: Redaction) -> String? {
        guard let url else { return nil }
        return "\(method ?? "GET") \(redaction.redact(url: url))"
    }

    /// The request a response answered.
    static func request(of response: Response, redaction: Redaction) -> String? {
        request(
            method: response.request?.httpMethod, url: response.request?.url ?? response.response?.url,
            redaction: redaction)
    }

    /// `127.0.0.1:8765`: the host and the port, the scheme's default port when none is given.
    static func hostAndPort(of url: URL?) -> String? {
        guard let url, let host = url.host, !host.isEmpty else { return nil }
        let port =
            url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return port.map { "\(shownHost):\($0)" } ?? shownHost
    }

    // MARK: Bodies

    /// A short, redacted, single-line excerpt of a body: `{"name":"Ada"}`, `empty`,
    /// `12 bytes of binary data`.
    static func excerpt(of data: Data, contentType: String?, redaction: Redaction) -> String {
        guard !data.isEmpty else { return "empty" }
        // Only the beginning is redacted (and then cut): a 30 MB body is not read to its end.
        let redacted = redaction.redact(body: data, contentType: contentType, limit: 16 * 1024)
        guard let text = String(data: redacted.data, encoding: .utf8) else {
            return "\(data.count) bytes of binary data"
        }
        return quote(text, totalBytes: data.count, isCut: !redacted.isComplete)
    }

    /// `text` on one line, cut to ``excerptLength`` characters with the size of the whole.
    /// `isCut`: `text` is only the beginning already.
    static func quote(_ text: String, totalBytes: Int? = nil, isCut: Bool = false) -> String {
        let oneLine = text.split(whereSeparator: { $0.isNewline || $0 == "\t" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
        guard oneLine.count > excerptLength || isCut else { return oneLine }
        let size = totalBytes.map { ", \($0) bytes in all" } ?? ""
        return "\(oneLine.prefix(excerptLength))… (cut\(size))"
    }

    /// The response's `Content-Type`, or `no Content-Type`.
    static func contentType(of response: Response) -> String {
        response.response?.value(forHTTPHeaderField: "Content-Type") ?? "no Content-Type"
    }
}
