/// Hides secrets in free text: `name=value`, `"name": value`, `'name': value`, `name: value`
/// and `Header: value` pairs and `<name>value</name>` elements whose name is secret,
/// `Bearer`/`Basic` credentials, JWTs and the passwords of URLs.
///
/// It reads no structure, so a text that only looks like JSON (cut, malformed, nested in a
/// string) cannot lead it astray: each rule looks at the bytes around a `=`, a `:` or a word.
/// A secret's value is hidden whole whatever it is — a quoted string (also with escaped
/// quotes, `\"…\"` or `\u0022…\u0022`), an object or an array (to its matching bracket, or to
/// the end of the text), or a bare word; and when the hidden part swallowed the name of
/// another secret whose value goes further, that value is hidden too.
///
/// One pass over the UTF-8 bytes; every rule moves forward and hides what it matched at
/// once, so the output of a run stopped early (``init(redaction:input:limit:)``) is the
/// beginning of the output of a whole run.
struct TextRedactor {
    /// The redacted bytes (`nil` when nothing changed), how far the input was read, and
    /// whether that is all of it.
    struct Result {
        let redacted: [UInt8]?
        let end: Int
        let isComplete: Bool
    }

    let redaction: Redaction
    let input: UnsafeBufferPointer<UInt8>
    private let limit: Int?
    private let replacement: [UInt8]
    private let hasNames: Bool

    var index = 0
    private var copyStart = 0
    private var output: [UInt8] = []
    private var changed = false

    /// - Parameter limit: stop once about this many bytes of output exist; `nil`: all.
    init(redaction: Redaction, input: UnsafeBufferPointer<UInt8>, limit: Int?) {
        self.redaction = redaction
        self.input = input
        self.limit = limit
        self.replacement = Array(redaction.replacement.utf8)
        self.hasNames = !redaction.keyNames.isEmpty || !redaction.headerNames.isEmpty
    }

    mutating func run() -> Result {
        guard hasNames || redaction.redactsCredentials else {
            let end = limit.map { min($0, input.count) } ?? input.count
            return Result(redacted: nil, end: scalarBoundary(from: end), isComplete: end == input.count)
        }
        while true {
            skipPlainBytes()
            guard index < input.count else { break }
            if let limit, outputLength >= limit {
                index = scalarBoundary(from: index)
                return finish(isComplete: index == input.count)
            }
            if !applyRule() { index += 1 }
        }
        return finish(isComplete: true)
    }

    /// Whether `bytes` could hold something this redactor hides: a `=` or `:` (pairs, header
    /// lines, URLs), a `>` (an element), `eyJ` (a JWT) or `bearer`/`basic` in any case. A cheap test, so that the
    /// JSON redactor reads most strings only once.
    static func mightHoldSecret(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var position = 0
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: ">"):
                return true
            case UInt8(ascii: "e"):
                if position + 2 < bytes.count, bytes[position + 1] == UInt8(ascii: "y"),
                    bytes[position + 2] == UInt8(ascii: "J")
                {
                    return true
                }
            case UInt8(ascii: "b"), UInt8(ascii: "B"):
                if matchesWord(bytes, at: position, "bearer") || matchesWord(bytes, at: position, "basic") {
                    return true
                }
            default: break
            }
            position += 1
        }
        return false
    }

    /// The same test on a string.
    static func mightHoldSecret(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { mightHoldSecret($0) }
    }

    // MARK: The pass

    private var outputLength: Int {
        changed ? output.count + index - copyStart : index
    }

    /// Moves `index` over bytes no rule starts at (and no further than the limit allows).
    private mutating func skipPlainBytes() {
        var end = input.count
        if let limit {
            end = min(end, copyStart + max(0, limit - (changed ? output.count : 0)))
        }
        while index < end {
            switch input[index] {
            case UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "e"),
                UInt8(ascii: ">"):
                return
            default: index += 1
            }
        }
    }

    /// Applies the rule that starts at `index`, if one matches; `false` otherwise.
    private mutating func applyRule() -> Bool {
        let credentials = redaction.redactsCredentials
        switch input[index] {
        case UInt8(ascii: "b"), UInt8(ascii: "B"):
            return credentials && isWordStart(index) && redactCredential()
        case UInt8(ascii: "e"):
            return credentials && redactJWT()
        case UInt8(ascii: "="):
            return hasNames && redactPair()
        case UInt8(ascii: ":"):
            if credentials, redactURLPassword() { return true }
            return hasNames && redactPair()
        case UInt8(ascii: ">"):
            return hasNames && redactElement()
        default:
            return false
        }
    }

    private mutating func finish(isComplete: Bool) -> Result {
        guard changed else { return Result(redacted: nil, end: index, isComplete: isComplete) }
        output += UnsafeBufferPointer(rebasing: input[copyStart..<index])
        return Result(redacted: output, end: index, isComplete: isComplete)
    }

    /// Writes `replacement` (with `prefix` and `suffix` around it) in place of
    /// `input[start..<end]`, and continues after it.
    mutating func replace(_ start: Int, _ end: Int, prefix: [UInt8] = [], suffix: [UInt8] = []) {
        if !changed { output.reserveCapacity(limit.map { min($0 + 64, input.count) } ?? input.count) }
        output += UnsafeBufferPointer(rebasing: input[copyStart..<start])
        output += prefix
        output += replacement
        output += suffix
        copyStart = end
        index = end
        changed = true
    }

    // MARK: Credentials

    /// At a word start: `Bearer <token>` or `Basic <token>` (any case) becomes
    /// `Bearer <redacted>`. An auth parameter such as `Basic realm="x"` is left alone.
    private mutating func redactCredential() -> Bool {
        for scheme in ["bearer", "basic"] {
            guard Self.matchesWord(input, at: index, scheme) else { continue }
            let end = index + scheme.utf8.count
            guard end < input.count, input[end] == UInt8(ascii: " ") else { continue }
            var tokenStart = end
            while tokenStart < input.count, input[tokenStart] == UInt8(ascii: " ") { tokenStart += 1 }
            var tokenEnd = tokenStart
            while tokenEnd < input.count, Self.isTokenByte(input[tokenEnd]) { tokenEnd += 1 }
            while tokenEnd < input.count, input[tokenEnd] == UInt8(ascii: "=") { tokenEnd += 1 }
            guard tokenEnd > tokenStart else { return false }
            if tokenEnd < input.count, input[tokenEnd - 1] == UInt8(ascii: "="),
                input[tokenEnd] == UInt8(ascii: "\"") || Self.isNameByte(input[tokenEnd])
            {
                return false  // `realm="x"`: a parameter, not a credential
            }
            replace(tokenStart, tokenEnd)
            return true
        }
        return false
    }

    /// At `eyJ` that starts a word: a JWT (three base64url segments) is hidden, also without
    /// its `Bearer`.
    private mutating func redactJWT() -> Bool {
        guard index + 2 < input.count, input[index + 1] == UInt8(ascii: "y"), input[index + 2] == UInt8(ascii: "J"),
            index == 0 || !Self.isBase64URL(input[index - 1])
        else { return false }
        var end = index
        var dots = 0
        while end < input.count, Self.isBase64URL(input[end]) || (input[end] == UInt8(ascii: ".") && dots < 2) {
            if input[end] == UInt8(ascii: ".") { dots += 1 }
            end += 1
        }
        guard dots == 2 else { return false }
        replace(index, end)
        return true
    }

    /// At the `:` of `scheme://user:secret@host`: the password is hidden.
    private mutating func redactURLPassword() -> Bool {
        guard index + 2 < input.count, input[index + 1] == UInt8(ascii: "/"), input[index + 2] == UInt8(ascii: "/")
        else { return false }
        let authorityStart = index + 3
        var authorityEnd = authorityStart
        var at: Int?
        while authorityEnd < input.count {
            switch input[authorityEnd] {
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\""), UInt8(ascii: "'"),
                0x20, 0x09, 0x0A, 0x0D:
                break
            case UInt8(ascii: "@"):
                at = authorityEnd
                authorityEnd += 1
                continue
            default:
                authorityEnd += 1
                continue
            }
            break
        }
        guard let at, let colon = input[authorityStart..<at].firstIndex(of: UInt8(ascii: ":")) else {
            return false
        }
        replace(colon + 1, at)
        return true
    }

    // MARK: Bytes and scalars

    /// The scalar that ends right before `position`, and where it starts.
    func scalarEnding(before position: Int) -> (Unicode.Scalar, Int)? {
        guard position > 0 else { return nil }
        let last = input[position - 1]
        if last < 0x80 { return (Unicode.Scalar(last), position - 1) }
        var start = position - 1
        while start > 0, position - start < 4, input[start] & 0xC0 == 0x80 { start -= 1 }
        var iterator = UnsafeBufferPointer(rebasing: input[start..<position]).makeIterator()
        var decoder = UTF8()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return ("\u{FFFD}", position - 1) }
        return (scalar, start)
    }

    /// `position`, moved past the rest of a scalar it may be inside.
    private func scalarBoundary(from position: Int) -> Int {
        var position = position
        while position < input.count, input[position] & 0xC0 == 0x80 { position += 1 }
        return position
    }

    private func isWordStart(_ position: Int) -> Bool {
        guard let (scalar, _) = scalarEnding(before: position) else { return true }
        return !Self.isNameScalar(scalar)
    }

    static func matchesWord(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, _ word: String) -> Bool {
        var offset = position
        for expected in word.utf8 {
            guard offset < bytes.count, bytes[offset] | 0x20 == expected else { return false }
            offset += 1
        }
        return true
    }

    static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return isNameByte(UInt8(scalar.value)) }
        return scalar.properties.isAlphabetic
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            true
        default: false
        }
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    static func isValueDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0D, 0x0A, UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ","),
            UInt8(ascii: ";"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ")"), UInt8(ascii: "}"),
            UInt8(ascii: "]"):
            true
        default: false
        }
    }
}
