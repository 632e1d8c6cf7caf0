import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The status line and header fields of a response, as libcurl hands them over line by
/// line. An interim (1xx) response is forgotten when the next status line arrives.
struct CurlResponseHead {
    /// The most header bytes one response may carry (libcurl bounds a single header).
    static let maximumSize = 1024 * 1024

    var statusCode = 0
    var httpVersion = "HTTP/1.1"
    /// The fields in arrival order; repeated names are joined when the response is built.
    var fields: [(name: String, value: String)] = []
    var size = 0
    /// The blank line after a final (non-1xx) status has arrived.
    var isComplete = false

    enum LineResult {
        case more
        /// The final response's head is complete.
        case complete
        /// The head is larger than ``maximumSize`` or unreadable.
        case invalid
    }

    /// Takes one header line, its CR LF included.
    mutating func take(_ line: UnsafeRawBufferPointer) -> LineResult {
        size += line.count
        guard size <= Self.maximumSize else { return .invalid }
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<end]), as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard parts.count >= 2, let code = Int(parts[1]), (100...999).contains(code) else { return .invalid }
            self = CurlResponseHead()
            size = line.count
            statusCode = code
            httpVersion = String(parts[0])
            return .more
        }
        if text.isEmpty {
            guard statusCode != 0 else { return .invalid }
            if (100..<200).contains(statusCode) && statusCode != 101 { return .more }
            isComplete = true
            return .complete
        }
        if let first = text.utf8.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            // An obsolete folded line continues the previous field.
            guard !fields.isEmpty else { return .invalid }
            fields[fields.count - 1].value += " " + text.trimmingCharacters(in: .whitespaces)
            return .more
        }
        guard let colon = text.firstIndex(of: ":") else { return .invalid }
        let name = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return .invalid }
        fields.append((name, value))
        return .more
    }

    /// The first value of `name`, compared without case.
    func value(_ name: String) -> String? {
        fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The `Content-Length`, when the response gives a valid one.
    var contentLength: Int64? {
        value("Content-Length").flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The fields as `HTTPURLResponse` wants them: repeated names joined with ", ", as
    /// `URLSession` does.
    var headerFields: [String: String] {
        var joined: [String: String] = [:]
        var spelling: [String: String] = [:]
        for (name, value) in fields {
            let key = name.lowercased()
            if let first = spelling[key] {
                joined[first] = joined[first].map { "\($0), \(value)" } ?? value
            } else {
                spelling[key] = name
                joined[name] = value
            }
        }
        return joined
    }
}
