// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The status line and header fields of a response, as libcurl hands them over line by
/// line. An interim (1xx) response is forgotten when the next status line arrives.
///
/// Lines are parsed as bytes (no Foundation string functions: this runs for every header of
/// every response), and the fields the transport itself needs are picked out on the way.
struct CurlResponseHead {
    /// The most header bytes one response may carry (libcurl bounds a single header).
    static let maximumSize = 1024 * 1024
    /// The most interim (1xx) heads before the answer.
    static let maximumInterimResponses = 32
    /// How many interim heads came before this one.
    var interimResponses = 0

    var statusCode = 0
    var httpVersion = "HTTP/1.1"
    /// The fields in arrival order; repeated names are joined when the response is built.
    var fields: [(name: String, value: String)] = []
    var size = 0
    /// The blank line after a final (non-1xx) status has arrived.
    var isComplete = false
    /// The first `Content-Length`, when it is a valid number.
    var contentLength: Int64?
    /// The first `Content-Encoding`.
    var contentEncoding: String?
    /// The first `Location`.
    var location: String?

    enum LineResult {
        case more
        /// The final response's head is complete.
        case complete
        /// The head is larger than ``maximumSize`` or unreadable.
        case invalid
    }

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let colon = UInt8(ascii: ":")

    /// Takes one header line, its CR LF included.
    mutating func take(_ line: UnsafeRawBufferPointer) -> LineResult {
        size += line.count
        guard size <= Self.maximumSize else { return .invalid }
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        if end == 0 {
            guard statusCode != 0 else { return .invalid }
            if (100..<200).contains(statusCode) && statusCode != 101 { return .more }
            isComplete = true
            return .complete
        }
        let text = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if text.starts(with: "HTTP/".utf8) {
            return takeStatusLine(text, lineSize: line.count)
        }
        if text[0] == Self.space || text[0] == Self.tab {
            // An obsolete folded line continues the previous field.
            guard !fields.isEmpty else { return .invalid }
            fields[fields.count - 1].value += " " + Self.string(Self.trimmed(text, 0, text.count))
            return .more
        }
        guard let colon = text.firstIndex(of: Self.colon) else { return .invalid }
        let name = Self.trimmed(text, 0, colon)
        guard !name.isEmpty else { return .invalid }
        let value = Self.string(Self.trimmed(text, colon + 1, text.count))
        let nameString = Self.string(name)
        fields.append((nameString, value))
        switch nameString.lowercased() {
        case "content-length" where contentLength == nil:
            contentLength = Int64(value).flatMap { $0 >= 0 ? $0 : nil }
        case "content-encoding" where contentEncoding == nil:
            contentEncoding = value
        case "location" where location == nil:
            location = value
        default:
            break
        }
        return .more
    }

    private mutating func takeStatusLine(_ text: UnsafeRawBufferPointer, lineSize: Int) -> LineResult {
        guard let versionEnd = text.firstIndex(of: Self.space) else { return .invalid }
        var index = versionEnd
        while index < text.count, text[index] == Self.space { index += 1 }
        var code = 0
        var digits = 0
        while index < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]), digits < 3 {
            code = code * 10 + Int(text[index] - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        guard digits == 3, index == text.count || text[index] == Self.space, code >= 100 else { return .invalid }
        let version = Self.string(UnsafeRawBufferPointer(rebasing: text[0..<versionEnd]))
        // A status line after another ends an interim (1xx) head; a server sending them
        // forever is cut off, as in URLSessionTransport.
        let interims = statusCode == 0 ? 0 : interimResponses + 1
        guard interims <= Self.maximumInterimResponses else { return .invalid }
        self = CurlResponseHead()
        interimResponses = interims
        size = lineSize
        statusCode = code
        httpVersion = version
        return .more
    }

    /// `bytes[start..<end]` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
        var start = start
        var end = end
        while start < end, bytes[start] == space || bytes[start] == tab { start += 1 }
        while end > start, bytes[end - 1] == space || bytes[end - 1] == tab { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    private static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the body arrives coded (gzip, say), so that its `Content-Length` counts
    /// coded bytes, not the decoded ones the transport sees.
    var isContentCoded: Bool {
        guard let contentEncoding, !contentEncoding.isEmpty else { return false }
        return contentEncoding.lowercased() != "identity"
    }

    /// The fields as `HTTPURLResponse` wants them: repeated names joined with ", ", as
    /// `URLSession` does.
    var headerFields: [String: String] {
        var joined: [String: String] = [:]
        joined.reserveCapacity(fields.count)
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

#endif
