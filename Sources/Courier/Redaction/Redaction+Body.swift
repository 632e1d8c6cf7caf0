import Foundation

/// A body with its secrets hidden, whole or only its beginning.
package struct RedactedBody: Sendable {
    /// The redacted bytes: the whole body, or its beginning when ``isComplete`` is `false`.
    package let data: Data
    /// Whether ``data`` is all of the body.
    package let isComplete: Bool
}

extension Redaction {
    /// A body with its secrets hidden.
    ///
    /// - JSON (one or more objects or arrays, with or without a byte order mark, also cut
    ///   short) keeps its text, key order, numbers and layout: the value of a secret field is
    ///   replaced whole, whatever its type and at any depth, by the replacement as a JSON
    ///   string, and secrets inside other strings are hidden. Keys are compared after their
    ///   escapes are decoded (`"refresh\u005ftoken"` is `refresh_token`), and every occurrence
    ///   of a duplicated key is hidden. Valid JSON stays valid JSON.
    /// - A form body has the values of secret fields replaced, and values whose text holds a
    ///   secret.
    /// - Any other text — malformed JSON included — is searched for `name=value`,
    ///   `"name": value` and `name: value` pairs (a value that is an object or an array is
    ///   hidden to its closing bracket), `<name>value</name>` elements, `Header: value` lines,
    ///   credentials, JWTs and URL passwords.
    /// - UTF-16 and UTF-32 text is read as text (the result is then UTF-8).
    /// - Binary data is returned as it is.
    ///
    /// A body without secrets is returned unchanged, byte for byte. The time taken grows with
    /// the body's size only, whatever its nesting.
    public func redact(body: Data, contentType: String?) -> Data {
        redact(body: body, contentType: contentType, limit: nil).data
    }

    /// The beginning of the redacted body: ``redact(body:contentType:)`` stopped once about
    /// `limit` bytes of output exist (a hidden value is hidden whole first), so that a huge
    /// body is not read to its end to show its beginning. The result is the beginning of what
    /// redacting the whole body gives, unless what comes later changes how the body is read
    /// (JSON that breaks after the part shown, a space after a form's first pairs); a cut is
    /// never made before redacting. `nil`: the whole body.
    package func redact(body: Data, contentType: String?, limit: Int?) -> RedactedBody {
        guard !body.isEmpty else { return RedactedBody(data: body, isComplete: true) }
        if let (text, isWhole) = Self.wideText(body, limit: limit) {
            var utf8 = text
            let redacted = utf8.withUTF8 { redact(bytes: $0, original: nil, contentType: contentType, limit: limit) }
            // Nothing hidden: the body as it came.
            if isWhole, redacted.isComplete, redacted.data == Data(text.utf8) {
                return RedactedBody(data: body, isComplete: true)
            }
            return RedactedBody(data: redacted.data, isComplete: isWhole && redacted.isComplete)
        }
        return body.withUnsafeBytes { raw in
            redact(
                bytes: raw.assumingMemoryBound(to: UInt8.self), original: body, contentType: contentType, limit: limit)
        }
    }

    /// - Parameter original: the body, returned when nothing changes (`nil`: a copy of
    ///   `bytes`).
    private func redact(
        bytes: UnsafeBufferPointer<UInt8>, original: Data?, contentType: String?, limit: Int?
    ) -> RedactedBody {
        func result(_ redacted: [UInt8]?, end: Int, isComplete: Bool) -> RedactedBody {
            if let redacted { return RedactedBody(data: Data(redacted), isComplete: isComplete) }
            if isComplete, let original { return RedactedBody(data: original, isComplete: true) }
            return RedactedBody(data: Data(UnsafeBufferPointer(rebasing: bytes[..<end])), isComplete: isComplete)
        }
        var json = JSONRedactor(redaction: self, input: bytes, limit: limit)
        if case .json(let redacted, let end, let isComplete) = json.run() {
            return result(redacted, end: end, isComplete: isComplete)
        }
        guard Self.isUTF8(bytes, checkingFirst: limit.map { $0 + 64 }) else {
            return result(nil, end: bytes.count, isComplete: true)
        }
        // Of a body cut by `limit`, only what can be shown is read.
        let shown = limit.map { min(bytes.count, $0 + 64) } ?? bytes.count
        let type = contentType?.lowercased()
        let isForm =
            type?.contains("application/x-www-form-urlencoded") == true
            || (type?.contains("json") != true && Self.looksLikeForm(UnsafeBufferPointer(rebasing: bytes[..<shown])))
        if isForm {
            // The pairs up to the first `&` after the limit: the last one shown is read whole.
            let end = bytes[min(shown, bytes.count)...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
            let (redacted, isComplete) = redact(form: text, limit: limit)
            let complete = isComplete && end == bytes.count
            return redacted == text
                ? result(nil, end: end, isComplete: complete)
                : result(Array(redacted.utf8), end: 0, isComplete: complete)
        }
        var text = TextRedactor(redaction: self, input: bytes, limit: limit)
        let redacted = text.run()
        return result(redacted.redacted, end: redacted.end, isComplete: redacted.isComplete)
    }

    /// `key=value` pairs and nothing that looks like prose or JSON.
    private static func looksLikeForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var hasEquals = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "="): hasEquals = true
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "\""), UInt8(ascii: "{"): return false
            default: break
            }
        }
        return hasEquals
    }

    /// Whether `bytes` (or their first `count`, where a character may be cut) are UTF-8.
    private static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>, checkingFirst count: Int?) -> Bool {
        guard let count, count < bytes.count else { return String(validating: bytes, as: UTF8.self) != nil }
        var end = count
        // Leave out a character the cut may have split: back to the start of the last one.
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(validating: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self) != nil
    }

    /// The text of a UTF-16 or UTF-32 body: one with a byte order mark, or JSON whose first
    /// characters show the encoding by their zero bytes (RFC 4627 §3). Without this, the
    /// zero bytes between the letters would hide every field name.
    /// With a `limit`, only the characters that can be shown are read; `isWhole` says
    /// whether that is all of the body.
    private static func wideText(_ body: Data, limit: Int?) -> (text: String, isWhole: Bool)? {
        guard body.count >= 4 else { return nil }
        let bytes = [UInt8](body.prefix(4))
        // Without a byte order mark, the bytes that are not zero must be text (JSON starts
        // with two ASCII characters), or a binary body full of zeros would be read as text.
        let isText = bytes.allSatisfy { $0 == 0 || (0x09...0x7E).contains($0) }
        let encoding: String.Encoding
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0x00, 0x00, 0xFE, 0xFF): encoding = .utf32BigEndian
        case (0xFF, 0xFE, 0x00, 0x00): encoding = .utf32LittleEndian
        case (0xFE, 0xFF, _, _): encoding = .utf16BigEndian
        case (0xFF, 0xFE, _, _): encoding = .utf16LittleEndian
        case _ where !isText: return nil
        case (0x00, 0x00, 0x00, _): encoding = .utf32BigEndian
        case (_, 0x00, 0x00, 0x00): encoding = .utf32LittleEndian
        case (0x00, _, 0x00, _): encoding = .utf16BigEndian
        case (_, 0x00, _, 0x00): encoding = .utf16LittleEndian
        default: return nil
        }
        // Four bytes per character at most; a multiple of 4 cuts no UTF-32 character.
        var length = body.count
        if let limit, limit < (Int.max - 64) / 4 { length = min(length, (limit + 64) * 4) }
        var decoded = String(data: body.prefix(length), encoding: encoding)
        if decoded == nil, length < body.count {
            // The cut split a UTF-16 surrogate pair: leave its first half out.
            decoded = String(data: body.prefix(length - 2), encoding: encoding)
        }
        guard var text = decoded else { return nil }
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        return (text, length == body.count)
    }
}
