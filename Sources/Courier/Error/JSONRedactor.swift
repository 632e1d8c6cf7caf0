import Foundation

/// Hides secret fields in a JSON text without re-serialising it: keys keep their order,
/// numbers their digits and the text its layout. Only the value of a secret field (replaced
/// by the redaction's replacement, as a JSON string) and a string holding a secret (its
/// secret parts replaced) change.
struct JSONRedactor {
    /// Deeper nesting is handed back as not redactable here; the caller falls back to text.
    private static let maximumDepth = 512

    private let redaction: Redaction
    private let bytes: [UInt8]
    private var index = 0
    private var output: [UInt8] = []
    private var changed = false

    init(redaction: Redaction, body: Data) {
        self.redaction = redaction
        self.bytes = Array(body)
    }

    /// The redacted body, the body itself when nothing secret was found, or `nil` when it is
    /// not a JSON object or array.
    mutating func run() -> Data? {
        guard let first = bytes.first(where: { !Self.isWhitespace($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            (try? JSONSerialization.jsonObject(with: Data(bytes), options: [])) != nil
        else { return nil }
        output.reserveCapacity(bytes.count)
        copyWhitespace()
        guard value(depth: 0) else { return nil }
        copyWhitespace()
        guard index == bytes.count else { return nil }
        return changed ? Data(output) : Data(bytes)
    }

    // MARK: Values

    private mutating func value(depth: Int) -> Bool {
        guard index < bytes.count, depth < Self.maximumDepth else { return false }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string()
        default:
            let start = index
            while index < bytes.count, !Self.endsScalar(bytes[index]) { index += 1 }
            output += bytes[start..<index]
            return index > start
        }
    }

    private mutating func object(depth: Int) -> Bool {
        copy()  // {
        copyWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            copy()
            return true
        }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\""), let key = stringSpan() else { return false }
            output += bytes[key]
            index = key.upperBound
            copyWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
            copy()
            copyWhitespace()
            if let name = Self.decodeString(bytes[key]), redaction.isSecret(key: name) {
                let mark = output.count
                guard value(depth: depth + 1) else { return false }
                output.removeSubrange(mark...)
                output += Self.encodeString(redaction.replacement)
                changed = true
            } else {
                guard value(depth: depth + 1) else { return false }
            }
            if let end = afterElement(closing: UInt8(ascii: "}")) { return end }
        }
        return false
    }

    private mutating func array(depth: Int) -> Bool {
        copy()  // [
        copyWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            copy()
            return true
        }
        while index < bytes.count {
            guard value(depth: depth + 1) else { return false }
            if let end = afterElement(closing: UInt8(ascii: "]")) { return end }
        }
        return false
    }

    /// After an object member or an array element: `closing` ends the container (`true`), a
    /// comma leads to the next element (`nil`), anything else is not JSON (`false`).
    private mutating func afterElement(closing: UInt8) -> Bool? {
        copyWhitespace()
        guard index < bytes.count else { return false }
        if bytes[index] == closing {
            copy()
            return true
        }
        guard bytes[index] == UInt8(ascii: ",") else { return false }
        copy()
        copyWhitespace()
        return nil
    }

    /// A string value: kept as written unless its text holds a secret (a URL with a token,
    /// say); then it is decoded, redacted and written again.
    private mutating func string() -> Bool {
        guard let span = stringSpan() else { return false }
        index = span.upperBound
        if let text = Self.decodeString(bytes[span]) {
            let redacted = redaction.redact(text: text)
            if redacted != text {
                output += Self.encodeString(redacted)
                changed = true
                return true
            }
        }
        output += bytes[span]
        return true
    }

    // MARK: Scanning

    /// The range of the string starting at `index`, quotes included.
    private func stringSpan() -> Range<Int>? {
        var end = index + 1
        while end < bytes.count {
            switch bytes[end] {
            case UInt8(ascii: "\\"): end += 2
            case UInt8(ascii: "\""): return index..<(end + 1)
            default: end += 1
            }
        }
        return nil
    }

    private mutating func copy() {
        output.append(bytes[index])
        index += 1
    }

    private mutating func copyWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { copy() }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
    }

    /// The text of a JSON string literal (quotes included).
    private static func decodeString(_ literal: ArraySlice<UInt8>) -> String? {
        if !literal.contains(UInt8(ascii: "\\")) {
            return String(decoding: literal.dropFirst().dropLast(), as: UTF8.self)
        }
        return (try? JSONSerialization.jsonObject(with: Data(literal), options: [.fragmentsAllowed])) as? String
    }

    private static func encodeString(_ text: String) -> [UInt8] {
        let data = try? JSONSerialization.data(
            withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes])
        return data.map(Array.init) ?? Array("\"\"".utf8)
    }
}

extension Redaction {
    /// The JSON body with secret fields replaced in place, `nil` when `body` is not JSON.
    func redact(json body: Data) -> Data? {
        var redactor = JSONRedactor(redaction: self, body: body)
        return redactor.run()
    }
}
