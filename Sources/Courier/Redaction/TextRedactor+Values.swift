/// The pair rules of ``TextRedactor``: which `=` and `:` follow a secret name, and how far
/// the value after them goes.
extension TextRedactor {
    /// What follows a `=` or `:` whose name is secret.
    enum SecretValue {
        /// A value that starts at `start`. `escaped`: the name was written with escaped quotes
        /// (`\"name\"`, `\u0022name\u0022`), so the value is text escaped once more.
        case value(start: Int, escaped: Bool)
        /// The rest of a header line (`Cookie: a=1; b=2`).
        case line(start: Int, end: Int)
    }

    /// How a quoted name was written.
    enum Quoting {
        case bare, quoted, escaped
    }

    /// At a `=` or `:` after a secret name: its value is hidden, and so is the value of any
    /// other secret whose name the hidden part swallowed.
    mutating func redactPair() -> Bool {
        guard let secret = secretValue(afterSeparator: index) else { return false }
        switch secret {
        case .line(let start, let end):
            if end > start {
                replace(start, extended(from: start, to: end))
            } else {
                index = end
            }
        case .value(let start, let escaped):
            guard let extent = extent(ofValueAt: start, escaped: escaped) else {
                index = start
                return true
            }
            replace(start, extended(from: start, to: extent.end), prefix: extent.prefix, suffix: extent.suffix)
        }
        return true
    }

    /// The secret value after the `=` or `:` at `position`, or `nil` when the name before it
    /// is not secret (or there is none).
    func secretValue(afterSeparator position: Int) -> SecretValue? {
        if input[position] == UInt8(ascii: "=") {
            // `name=value`, also `name = value` (INI files, environment dumps).
            var first = position
            while first > 0, input[first - 1] == UInt8(ascii: " ") || input[first - 1] == UInt8(ascii: "\t") {
                first -= 1
            }
            let nameEnd = first
            while let (scalar, start) = scalarEnding(before: first),
                Self.isNameScalar(scalar) || scalar == "[" || scalar == "]" || scalar == "%" || scalar == "+"
            {
                first = start
            }
            guard first < nameEnd else { return nil }
            let name = UnsafeBufferPointer(rebasing: input[first..<nameEnd])
            let isSecret =
                name.contains(UInt8(ascii: "%")) || name.contains(UInt8(ascii: "+"))
                ? redaction.isSecret(key: Redaction.formDecoded(String(decoding: name, as: UTF8.self)))
                : isSecretKey(name)
            guard isSecret else { return nil }
            var start = position + 1
            while start < input.count, input[start] == UInt8(ascii: " ") || input[start] == UInt8(ascii: "\t") {
                start += 1
            }
            return .value(start: start, escaped: false)
        }
        // JSON allows any whitespace between a key and its colon, line breaks too.
        var last = position - 1
        while last >= 0, Self.isWhitespace(input[last]) { last -= 1 }
        guard last >= 0, let (name, quoting) = name(endingAt: last) else { return nil }
        let isKey =
            quoting != .bare && name.contains(UInt8(ascii: "\\"))
            ? redaction.isSecret(key: JSONStringCoding.decode(name)) : isSecretKey(name)
        // A field name (`id_token: abc def`) hides one value; a header (`Cookie: a=1; b=2`,
        // `X-Api-Key: …`) hides the rest of its line.
        let nameText = { String(decoding: name, as: UTF8.self) }
        let isHeaderLine =
            quoting == .bare
            && (redaction.nameMatcher.isSecret(header: name) ?? redaction.isSecret(header: nameText()))
            && !redaction.keyNames.contains(Redaction.normalized(nameText()))
        if isHeaderLine {
            var start = position + 1
            while start < input.count, input[start] == UInt8(ascii: " ") || input[start] == UInt8(ascii: "\t") {
                start += 1
            }
            var end = start
            while end < input.count, input[end] != 0x0A, input[end] != 0x0D { end += 1 }
            return .line(start: start, end: end)
        }
        guard isKey else { return nil }
        return .value(start: afterWhitespace(position + 1), escaped: quoting == .escaped)
    }

    /// The name whose last byte is at `last`: `"name"`, `'name'`, `\"name\"`,
    /// `\u0022name\u0022`, or a bare word.
    private func name(endingAt last: Int) -> (UnsafeBufferPointer<UInt8>, Quoting)? {
        let byte = input[last]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            var close = last
            while close > 0, input[close - 1] == UInt8(ascii: "\\") { close -= 1 }
            var open = close - 1
            while open >= 0, input[open] != byte { open -= 1 }
            guard open >= 0 else { return nil }
            return (UnsafeBufferPointer(rebasing: input[(open + 1)..<close]), close < last ? .escaped : .quoted)
        }
        if let close = quoteToken(endingAt: last) {
            var open = close - 1
            var contentStart: Int?
            while open >= 0 {
                if let token = quoteToken(startingAt: open), token.end <= close {
                    contentStart = token.end
                    break
                }
                open -= 1
            }
            guard let contentStart else { return nil }
            return (UnsafeBufferPointer(rebasing: input[contentStart..<close]), .escaped)
        }
        guard let (scalar, _) = scalarEnding(before: last + 1), Self.isNameScalar(scalar) else { return nil }
        var first = last + 1
        while let (scalar, start) = scalarEnding(before: first), Self.isNameScalar(scalar) { first = start }
        return (UnsafeBufferPointer(rebasing: input[first...last]), .bare)
    }

    func isSecretKey(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        redaction.nameMatcher.isSecret(key: name) ?? redaction.isSecret(key: String(decoding: name, as: UTF8.self))
    }

    // MARK: How far a value goes

    /// What replaces a value: `prefix`, the replacement, `suffix`, in place of `start..<end`.
    struct Extent {
        let end: Int
        var prefix: [UInt8] = []
        var suffix: [UInt8] = []
    }

    /// The value at `start`, whatever it is — a quoted string (also with escaped quotes), an
    /// object or an array (to its matching bracket, or the end of the text), or a bare word;
    /// `nil` when there is none.
    func extent(ofValueAt start: Int, escaped: Bool) -> Extent? {
        guard start < input.count else { return nil }
        let byte = input[start]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            let (end, terminated) = stringEnd(after: start + 1, quote: byte, escaped: false)
            return Extent(end: afterQuoted(end), prefix: [byte], suffix: terminated ? [byte] : [])
        }
        let (virtual, length) = virtualByte(at: start, escaped: true)
        if length > 1, virtual == UInt8(ascii: "\"") || virtual == UInt8(ascii: "'") {
            let (end, terminated) = stringEnd(after: start + length, quote: virtual, escaped: true)
            let quote = Array(input[start..<(start + length)])
            return Extent(end: afterQuoted(end), prefix: quote, suffix: terminated ? quote : [])
        }
        if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
            return Extent(end: structureEnd(from: start, escaped: escaped || startsEscaped(start)))
        }
        var end = start
        while end < input.count, !Self.isValueDelimiter(input[end]) { end += 1 }
        guard end > start else { return nil }
        // `token: Bearer abc`: the scheme alone is not the value, its credential is too.
        let word = end - start
        if word == 6 && Self.matchesWord(input, at: start, "bearer")
            || word == 5 && Self.matchesWord(input, at: start, "basic")
        {
            var credential = end
            while credential < input.count, input[credential] == UInt8(ascii: " ") { credential += 1 }
            while credential < input.count,
                Self.isTokenByte(input[credential]) || input[credential] == UInt8(ascii: "=")
            {
                credential += 1
            }
            if credential > end + 1 { end = credential }
        }
        return Extent(end: end)
    }

    /// `end` moved past the value of every secret whose name is inside `start..<end` and
    /// whose value goes further: a hidden part that swallowed a name must not leave the rest
    /// of that name's value in view.
    func extended(from start: Int, to end: Int) -> Int {
        var end = end
        var position = start + 1
        while position < end, end < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: ":") || byte == UInt8(ascii: "="),
                let secret = secretValue(afterSeparator: position)
            {
                let innerEnd: Int
                switch secret {
                case .line(_, let lineEnd): innerEnd = lineEnd
                case .value(let valueStart, let escaped):
                    innerEnd = extent(ofValueAt: valueStart, escaped: escaped)?.end ?? valueStart
                }
                end = max(end, innerEnd)
                position = max(position + 1, innerEnd)
                continue
            }
            position += 1
        }
        return end
    }

    /// After a string's closing quote: `"a"b, …` — the `b` belongs to the value too.
    private func afterQuoted(_ end: Int) -> Int {
        var end = end
        while end < input.count, !Self.isValueDelimiter(input[end]) { end += 1 }
        return end
    }

    /// The end of the string whose contents start at `start` (after its closing quote), and
    /// whether it has one.
    private func stringEnd(after start: Int, quote: UInt8, escaped: Bool) -> (Int, terminated: Bool) {
        var position = start
        while position < input.count {
            let (byte, length) = virtualByte(at: position, escaped: escaped)
            if byte == UInt8(ascii: "\\") {
                position += length
                if position < input.count { position += virtualByte(at: position, escaped: escaped).length }
                continue
            }
            if byte == quote { return (position + length, true) }
            position += length
        }
        return (input.count, false)
    }

    /// After the object or array at `start`'s matching bracket (brackets inside `"…"` and
    /// `'…'` strings do not count); the end of the text when it never closes.
    private func structureEnd(from start: Int, escaped: Bool) -> Int {
        var depth = 0
        var position = start
        while position < input.count {
            let (byte, length) = virtualByte(at: position, escaped: escaped)
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                position = stringEnd(after: position + length, quote: byte, escaped: escaped).0
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return position + length }
            default: break
            }
            position += length
        }
        return input.count
    }

    /// Whether the first quote inside the object or array at `start` is written escaped
    /// (`{\"a\": …}`): JSON inside a string, printed as it was stored.
    private func startsEscaped(_ start: Int) -> Bool {
        var position = start + 1
        while position < input.count {
            switch input[position] {
            case UInt8(ascii: "\""): return input[position - 1] == UInt8(ascii: "\\")
            case UInt8(ascii: "\\"), UInt8(ascii: "&"): if quoteToken(startingAt: position) != nil { return true }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): return false
            default: break
            }
            position += 1
        }
        return false
    }

    /// The byte at `position` as text escaped once more reads it (`\"` is `"`, `\\` is `\`,
    /// `\u0022` is `"`, `\n` a space), and how many bytes it takes; plain text reads every
    /// byte as itself.
    private func virtualByte(at position: Int, escaped: Bool) -> (byte: UInt8, length: Int) {
        let byte = input[position]
        guard escaped, byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "&"), position + 1 < input.count else {
            return (byte, 1)
        }
        if let token = quoteToken(startingAt: position) { return (token.quote, token.end - position) }
        guard byte == UInt8(ascii: "\\") else { return (byte, 1) }
        switch input[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "'"):
            return (input[position + 1], 2)
        case UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"), UInt8(ascii: "b"), UInt8(ascii: "f"):
            return (UInt8(ascii: " "), 2)
        case UInt8(ascii: "u"):
            guard let value = JSONStringCoding.hexValue(input, at: position + 2) else { return (byte, 1) }
            return (value < 0x80 ? UInt8(value) : 0x80, 6)
        default:
            return (byte, 1)
        }
    }

    /// `position` moved over whitespace, also written as an escape (`\n`, `\t`: text that
    /// was JSON once, printed as it was stored).
    private func afterWhitespace(_ position: Int) -> Int {
        var position = position
        while position < input.count {
            if Self.isWhitespace(input[position]) {
                position += 1
            } else if input[position] == UInt8(ascii: "\\"), position + 1 < input.count,
                [UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t")].contains(input[position + 1])
            {
                position += 2
            } else {
                break
            }
        }
        return position
    }

    /// A quote written as an escape at `position` — `\u0022`, `\u0027`, or the HTML entities
    /// `&quot;`, `&#34;`, `&#x22;`, `&apos;`, `&#39;`, `&#x27;` — and the index after it, with
    /// the quote it stands for.
    func quoteToken(startingAt position: Int) -> (end: Int, quote: UInt8)? {
        guard position >= 0, position < input.count else { return nil }
        func matches(_ text: String) -> Bool {
            var offset = position
            for expected in text.utf8 {
                guard offset < input.count else { return false }
                let byte = input[offset]
                // Hex digits and entity names in any case.
                guard byte == expected || (expected >= UInt8(ascii: "a") && byte | 0x20 == expected) else {
                    return false
                }
                offset += 1
            }
            return true
        }
        switch input[position] {
        case UInt8(ascii: "\\"):
            if matches("\\u0022") { return (position + 6, UInt8(ascii: "\"")) }
            if matches("\\u0027") { return (position + 6, UInt8(ascii: "'")) }
        case UInt8(ascii: "&"):
            for (entity, quote) in Self.quoteEntities where matches(entity) {
                return (position + entity.utf8.count, quote)
            }
        default: break
        }
        return nil
    }

    private static let quoteEntities: [(String, UInt8)] = [
        ("&quot;", UInt8(ascii: "\"")), ("&#34;", UInt8(ascii: "\"")), ("&#x22;", UInt8(ascii: "\"")),
        ("&apos;", UInt8(ascii: "'")), ("&#39;", UInt8(ascii: "'")), ("&#x27;", UInt8(ascii: "'")),
    ]

    /// A quote written as an escape that ends at `last`: the index where it starts.
    private func quoteToken(endingAt last: Int) -> Int? {
        for length in [5, 6] where last - length + 1 >= 0 {
            if let token = quoteToken(startingAt: last - length + 1), token.end == last + 1 { return last - length + 1 }
        }
        return nil
    }
}
