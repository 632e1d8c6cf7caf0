/// Hides secret fields in a JSON text without re-serialising it: keys keep their order,
/// numbers their digits and the text its layout. Only the value of a secret field (replaced,
/// whatever its type, by the redaction's replacement as a JSON string) and a string holding a
/// secret (its secret parts replaced) change.
///
/// One pass over the bytes, without recursion: the nesting is a stack with one entry per
/// level, so a document nested a million levels deep is redacted like a flat one, in time
/// proportional to its size. Nothing is copied until the first change, so a body without a
/// secret costs one read.
///
/// What it accepts: one or more objects or arrays (whitespace between them, as in NDJSON),
/// after an optional UTF-8 byte order mark; JSON's grammar, plus `NaN`, `Infinity` and
/// `-Infinity` (which Python's `json` writes); and a text cut short, since a cut document is
/// still read exactly up to its end. Anything else is not JSON and is left to the text
/// redactor, which reads no structure and cannot be led astray by one.
struct JSONRedactor {
    /// What a run found.
    enum Outcome {
        /// Not JSON: the caller redacts it as text.
        case notJSON
        /// JSON: the redacted bytes (`nil` when nothing changed and the input stands as it
        /// is), and whether they are all of it (`false` when the output limit stopped the run).
        case json(redacted: [UInt8]?, end: Int, isComplete: Bool)
    }

    private enum Expectation {
        /// A top-level object or array, or the end.
        case document
        case value
        /// A value or `]`, right after `[`.
        case firstElement
        /// A key or `}`, right after `{`.
        case firstKey
        /// A key, after a comma.
        case key
        case colon
        /// A comma or the end of the container.
        case separator
    }

    private let redaction: Redaction
    private let input: UnsafeBufferPointer<UInt8>
    private let limit: Int?
    private let replacement: [UInt8]

    private var index = 0
    /// Where the bytes not yet copied to `output` start.
    private var copyStart = 0
    private var output: [UInt8] = []
    private var changed = false
    /// One entry per open container: `true` for an object.
    private var stack: [Bool] = []
    private var expectation = Expectation.document
    /// The key just read is secret: its value is hidden.
    private var secretKey = false
    /// Inside a hidden value, which ends when the stack is back to `hiddenDepth`.
    private var hiding = false
    private var hiddenDepth = 0
    /// Whether a top-level object or array began.
    private var sawDocument = false

    /// - Parameter limit: stop once about this many bytes of output exist (the run stops
    ///   between tokens, so a little more may be written); `nil`: redact everything.
    init(redaction: Redaction, input: UnsafeBufferPointer<UInt8>, limit: Int?) {
        self.redaction = redaction
        self.input = input
        self.limit = limit
        self.replacement = JSONStringCoding.encode(redaction.replacement)
    }

    mutating func run() -> Outcome {
        // A byte order mark is copied like whitespace.
        if input.count >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF { index = 3 }
        while true {
            skipWhitespace()
            guard index < input.count else { return finish(isComplete: true) }
            if let limit, outputLength >= limit { return finish(isComplete: false) }
            guard step() else { return .notJSON }
        }
    }

    /// The number of bytes the output would have if the run stopped here.
    private var outputLength: Int {
        changed ? output.count + (hiding ? 0 : index - copyStart) : index
    }

    private mutating func finish(isComplete: Bool) -> Outcome {
        // A body that is only whitespace (or a BOM) is not a document.
        if expectation == .document, stack.isEmpty, !changed, !sawDocument { return .notJSON }
        guard changed else { return .json(redacted: nil, end: index, isComplete: isComplete) }
        if !hiding { output += UnsafeBufferPointer(rebasing: input[copyStart..<index]) }
        return .json(redacted: output, end: index, isComplete: isComplete)
    }

    // MARK: Grammar

    /// Reads one token; `false` when the text is not JSON.
    private mutating func step() -> Bool {
        let byte = input[index]
        switch expectation {
        case .document:
            guard byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") else { return false }
            sawDocument = true
            return value(byte)
        case .value:
            return value(byte)
        case .firstElement:
            if byte == UInt8(ascii: "]") { return close(object: false) }
            return value(byte)
        case .firstKey, .key:
            if byte == UInt8(ascii: "}"), expectation == .firstKey { return close(object: true) }
            guard byte == UInt8(ascii: "\"") else { return false }
            return key()
        case .colon:
            guard byte == UInt8(ascii: ":") else { return false }
            index += 1
            expectation = .value
            return true
        case .separator:
            let isObject = stack[stack.count - 1]
            if byte == UInt8(ascii: ",") {
                index += 1
                expectation = isObject ? .key : .value
                return true
            }
            return close(object: isObject)
        }
    }

    private mutating func value(_ byte: UInt8) -> Bool {
        if secretKey {
            secretKey = false
            startHiding()
        }
        switch byte {
        case UInt8(ascii: "{"):
            index += 1
            stack.append(true)
            expectation = .firstKey
            return true
        case UInt8(ascii: "["):
            index += 1
            stack.append(false)
            expectation = .firstElement
            return true
        case UInt8(ascii: "\""):
            guard let string = scanString() else { return false }
            if !hiding { redactInside(string) }
            index = string.end
            return valueEnded()
        default:
            guard scanScalar() else { return false }
            return valueEnded()
        }
    }

    private mutating func key() -> Bool {
        guard let string = scanString() else { return false }
        if !hiding {
            if let contents = string.contents, isSecret(key: contents, escaped: string.hasEscape) {
                secretKey = true
            } else {
                redactInside(string)
            }
        }
        index = string.end
        expectation = .colon
        return true
    }

    private mutating func close(object: Bool) -> Bool {
        guard input[index] == (object ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
        index += 1
        stack.removeLast()
        return valueEnded()
    }

    /// After a whole value: a hidden value may end here, and what comes next depends on the
    /// container.
    private mutating func valueEnded() -> Bool {
        if hiding, stack.count == hiddenDepth {
            hiding = false
            copyStart = index
        }
        expectation = stack.isEmpty ? .document : .separator
        return true
    }

    // MARK: Hiding and redacting

    private mutating func startHiding() {
        flush(upTo: index)
        output += replacement
        changed = true
        hiding = true
        hiddenDepth = stack.count
    }

    /// A string that is not a secret's value, with secrets in its text (a URL with a token,
    /// `Bearer …`) hidden. A string cut off by the end of the body is hidden whole if its
    /// text could hold one: its end, which would show what it is, is missing.
    private mutating func redactInside(_ string: ScannedString) {
        guard let contents = string.contents else {
            let partial = UnsafeBufferPointer(rebasing: input[(string.start + 1)..<string.end])
            guard TextRedactor.mightHoldSecret(partial) else { return }
            flush(upTo: string.start)
            output += replacement.dropLast()
            copyStart = string.end
            changed = true
            return
        }
        guard TextRedactor.mightHoldSecret(contents) else { return }
        let text = JSONStringCoding.decode(contents)
        if string.hasEscape, !TextRedactor.mightHoldSecret(text) { return }
        let redacted = redaction.redact(text: text)
        guard redacted != text else { return }
        flush(upTo: string.start)
        output += JSONStringCoding.encode(redacted)
        copyStart = string.end
        changed = true
    }

    private func isSecret(key contents: UnsafeBufferPointer<UInt8>, escaped: Bool) -> Bool {
        if !escaped, let answer = redaction.nameMatcher.isSecret(key: contents) { return answer }
        return redaction.isSecret(key: JSONStringCoding.decode(contents))
    }

    private mutating func flush(upTo end: Int) {
        if !changed { output.reserveCapacity(limit.map { min($0 + 64, input.count) } ?? input.count) }
        output += UnsafeBufferPointer(rebasing: input[copyStart..<end])
        copyStart = end
    }

    // MARK: Scanning

    private struct ScannedString {
        /// The opening quote.
        let start: Int
        /// After the closing quote, or the end of the input when there is none.
        let end: Int
        /// Between the quotes; `nil` when the input ends before the closing quote.
        let contents: UnsafeBufferPointer<UInt8>?
        let hasEscape: Bool
    }

    /// The string at `index`; `nil` when an escape is not JSON's. Control characters and
    /// invalid UTF-8 inside are let through: they cannot move the string's end, and the
    /// string is shown as it came.
    private func scanString() -> ScannedString? {
        var position = index + 1
        var hasEscape = false
        while position < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                return ScannedString(
                    start: index, end: position + 1,
                    contents: UnsafeBufferPointer(rebasing: input[(index + 1)..<position]), hasEscape: hasEscape)
            }
            if byte == UInt8(ascii: "\\") {
                hasEscape = true
                guard position + 1 < input.count else { break }
                switch input[position + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 2
                case UInt8(ascii: "u"):
                    let available = min(4, input.count - position - 2)
                    for offset in 0..<available where JSONStringCoding.hexDigit(input[position + 2 + offset]) == nil {
                        return nil
                    }
                    position += 2 + available
                default:
                    return nil
                }
                continue
            }
            position += 1
        }
        return ScannedString(start: index, end: input.count, contents: nil, hasEscape: hasEscape)
    }

    /// A number, `true`, `false`, `null`, `NaN`, `Infinity` or `-Infinity` at `index`;
    /// `false` when it is none of them (a text cut inside one is one).
    private mutating func scanScalar() -> Bool {
        let start = index
        let byte = input[index]
        if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            if byte == UInt8(ascii: "-"), index + 1 < input.count, input[index + 1] == UInt8(ascii: "I") {
                return literal(start: start, "-Infinity")
            }
            return number()
        }
        switch byte {
        case UInt8(ascii: "t"): return literal(start: start, "true")
        case UInt8(ascii: "f"): return literal(start: start, "false")
        case UInt8(ascii: "n"): return literal(start: start, "null")
        case UInt8(ascii: "N"): return literal(start: start, "NaN")
        case UInt8(ascii: "I"): return literal(start: start, "Infinity")
        default: return false
        }
    }

    private mutating func literal(start: Int, _ word: String) -> Bool {
        var position = start
        for expected in word.utf8 {
            guard position < input.count else { break }
            guard input[position] == expected else { return false }
            position += 1
        }
        index = position
        return true
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() -> Bool {
        func digits() -> Int {
            let start = index
            while index < input.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(input[index]) { index += 1 }
            return index - start
        }
        if input[index] == UInt8(ascii: "-") { index += 1 }
        guard index < input.count else { return true }
        if input[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return false
        }
        if index < input.count, input[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0, index < input.count { return false }
        }
        if index < input.count, input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
            index += 1
            if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") {
                index += 1
            }
            if digits() == 0, index < input.count { return false }
        }
        return true
    }

    private mutating func skipWhitespace() {
        while index < input.count {
            switch input[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }
}
