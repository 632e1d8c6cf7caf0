import Courier
import CourierTesting
import Foundation
import Testing

/// Seeded random JSON documents, nested up to thousands of levels, with secrets of every type
/// under every spelling of their names — redacted as they are, cut, made malformed and
/// rewritten with Python's quotes. A failure names its seed and document, so it replays.
@Suite("Redaction fuzzing", .timeLimit(.minutes(20)))
struct RedactionFuzzTests {
    static let documents = 150

    @Test(
        "valid documents: exactly the secret values change, and only the shown part is redacted",
        arguments: [1, 2, 3] as [UInt64])
    func valid(seed: UInt64) async throws {
        var writer = DocumentWriter(random: SeededRandomNumberGenerator(seed: seed))
        let redaction = Redaction.default
        for index in 0..<Self.documents {
            if index % 25 == 0 { await Task.yield() }
            let document = writer.document(python: false)
            let body = Data(document.text.utf8)
            let redacted = redaction.redact(body: body, contentType: "application/json")
            let text = String(decoding: redacted, as: UTF8.self)
            #expect(text == document.expected, "seed \(seed) #\(index), depth \(document.depth):\n\(document.text)")
            if document.secrets == 0 { #expect(redacted == body, "unchanged, byte for byte") }
            if document.depth < 300 {
                #expect(
                    (try? JSONSerialization.jsonObject(with: redacted)) != nil, "still JSON: seed \(seed) #\(index)")
            }
            let limit = Int(writer.random.next() % UInt64(body.count + 1))
            let part = redaction.redact(body: body, contentType: nil, limit: limit)
            #expect(redacted.starts(with: part.data), "seed \(seed) #\(index), limit \(limit)")
        }
    }

    @Test("cut, malformed or in Python's quotes: no secret is ever shown", arguments: [4, 5, 6] as [UInt64])
    func hostile(seed: UInt64) async {
        var writer = DocumentWriter(random: SeededRandomNumberGenerator(seed: seed))
        let redaction = Redaction.default
        let strays = [",", "}", "]", "x", "\"", "'", ":", "{", "[", " oops ", "NaN"]
        for index in 0..<Self.documents {
            if index % 25 == 0 { await Task.yield() }
            let document = writer.document(python: index % 3 == 0)
            var bytes = Array(document.text.utf8)
            var mutation = "python quotes"
            if index % 3 == 1, let position = document.safePositions.randomElement(using: &writer.random) {
                let stray = strays.randomElement(using: &writer.random)!
                bytes.insert(contentsOf: Array(stray.utf8), at: position)
                mutation = "\(stray) at \(position)"
            } else if index % 3 == 2 {
                let length = Int(writer.random.next() % UInt64(bytes.count))
                bytes = Array(bytes[..<length])
                mutation = "cut at \(length)"
            }
            let body = Data(bytes)
            let text = String(decoding: redaction.redact(body: body, contentType: nil), as: UTF8.self)
            let leak = text.range(of: "SECRET") ?? text.range(of: "777")
            let input = String(decoding: bytes, as: UTF8.self)
            let leaked = leak.map { String(text[$0.lowerBound...].prefix(10)) } ?? ""
            #expect(
                leak == nil,
                "seed \(seed) #\(index), \(mutation): \(Self.context(of: leak, in: text)) from \(Self.context(of: input.range(of: leaked), in: input))"
            )
        }
    }
}

extension RedactionFuzzTests {
    /// The text around a leak, on one line: a whole document would be too long to read.
    static func context(of range: Range<String.Index>?, in text: String) -> String {
        guard let range else { return "" }
        let start = text.index(range.lowerBound, offsetBy: -300, limitedBy: text.startIndex) ?? text.startIndex
        let end = text.index(range.upperBound, offsetBy: 60, limitedBy: text.endIndex) ?? text.endIndex
        return String(text[start..<end]).debugDescription
    }
}

/// A document and what redaction must make of it.
struct FuzzDocument {
    let text: String
    /// `text` with every secret value replaced by `"<redacted>"`.
    let expected: String
    /// Offsets (in UTF-8 bytes) between tokens, outside every secret's key and value, where
    /// a stray character leaves every secret intact.
    let safePositions: [Int]
    let depth: Int
    let secrets: Int
}

/// Writes random JSON by hand, so that it can nest deeper than Foundation reads.
struct DocumentWriter {
    var random: SeededRandomNumberGenerator

    private var text = ""
    private var expected = ""
    private var safe: [Int] = []
    private var secrets = 0
    private var python = false

    init(random: SeededRandomNumberGenerator) {
        self.random = random
    }

    static let secretNames = [
        "refresh_token", "refreshToken", "REFRESH-TOKEN", "access_token", "AccessToken", "client_secret", "password",
        "Password", "id_token", "api_key",
    ]
    static let plainNames = ["id", "name", "nested", "x-y", "é", "a\"b", "tab\tkey", "token_type", "passwordHint"]
    static let plainStrings = [
        "plain", "with \"quotes\" and \\ backslash", "ünïcødé ✓", "line\nbreak", "", "tab\tand /slash/", "}]),{[",
        "\u{1F600} and \u{7F}", "it's",
    ]

    mutating func document(python: Bool) -> FuzzDocument {
        self.python = python
        text = ""
        expected = ""
        safe = []
        secrets = 0
        let depth = pick([1, 2, 5, 40, 300, 600, 2_000])
        spine(depth: depth)
        return FuzzDocument(text: text, expected: expected, safePositions: safe, depth: depth, secrets: secrets)
    }

    // MARK: Structure

    /// `depth` levels of objects and arrays, each with a few members beside the next level.
    private mutating func spine(depth: Int) {
        let isObject = depth == 1 || next(3) != 0
        write(isObject ? "{" : "[")
        var first = true
        let members = next(depth > 100 ? 2 : 4)
        for member in 0...members {
            if !first { write(",") }
            first = false
            space()
            let isSpine = member == members / 2 && depth > 1
            if isObject {
                if !isSpine, next(3) == 0 {
                    secretMember()
                } else {
                    key(pick(Self.plainNames) + (next(2) == 0 ? "\(next(100))" : ""))
                    if isSpine { spine(depth: depth - 1) } else { value(depth: 0) }
                }
            } else if isSpine {
                spine(depth: depth - 1)
            } else {
                value(depth: 0)
            }
            space()
        }
        write(isObject ? "}" : "]")
    }

    private mutating func secretMember() {
        secrets += 1
        let safeBefore = safe.count
        let name = pick(Self.secretNames)
        let spelled = escapingOneCharacter(name)
        text += quoted(spelled, raw: true)
        expected += quoted(spelled, raw: true)
        optionalSpace(safe: false)
        text += ":"
        expected += ":"
        optionalSpace(safe: false)
        // The secret value: expected gets the replacement instead.
        let saved = expected
        secretValue(depth: 0)
        expected = saved + quoted("<redacted>", raw: false)
        // Nothing inside the secret's key or value is a safe place for a stray character.
        safe.removeSubrange(safeBefore...)
    }

    private mutating func secretValue(depth: Int) {
        switch next(depth > 2 ? 4 : 6) {
        case 0: write(quoted("SECRET-\(next(1000)) } ] , : \" \\ é '", raw: false))
        case 1: write("777\(next(1_000_000))")
        case 2: write(pick(["true", "false", "null"]))
        case 3: write(quoted("SECRET-\(next(1000))", raw: false))
        case 4:
            write("[")
            for index in 0..<(1 + next(3)) {
                if index > 0 { write(", ") }
                secretValue(depth: depth + 1)
            }
            write("]")
        default:
            write("{")
            for index in 0..<(1 + next(3)) {
                if index > 0 { write(",") }
                write(quoted(pick(["v", "refresh_token", "SECRET-KEY", "a\"b"]), raw: false) + ":")
                secretValue(depth: depth + 1)
            }
            write("}")
        }
    }

    private mutating func key(_ name: String) {
        write(quoted(name, raw: false))
        optionalSpace(safe: true)
        write(":")
        optionalSpace(safe: true)
    }

    private mutating func value(depth: Int) {
        switch next(depth > 1 ? 4 : 6) {
        case 0: write("\(next(700))")
        case 1: write(pick(["-0.5", "1e3", "0", "12.25E-2"]))
        case 2: write(pick(["true", "false", "null"]))
        case 3: write(quoted(pick(Self.plainStrings), raw: false))
        case 4:
            write("[")
            for index in 0..<next(3) {
                if index > 0 { write(",") }
                value(depth: depth + 1)
            }
            write("]")
        default:
            write("{")
            for index in 0..<next(3) {
                if index > 0 { write(",") }
                key(pick(Self.plainNames))
                value(depth: depth + 1)
            }
            write("}")
        }
    }

    // MARK: Text

    /// Written to both the document and the expectation; the position after it is safe.
    private mutating func write(_ piece: String) {
        text += piece
        expected += piece
        safe.append(text.utf8.count)
    }

    private mutating func space() {
        write(pick(["", "", " ", "\n  ", "\t"]))
    }

    private mutating func optionalSpace(safe isSafe: Bool) {
        let piece = pick(["", "", " ", "\n"])
        text += piece
        expected += piece
        if isSafe { safe.append(text.utf8.count) }
    }

    /// A string literal: JSON's (or Python's `'…'`), with escapes where needed and, now and
    /// then, where not (`\/`, `\u00e9`). `raw`: the text is already escaped.
    private mutating func quoted(_ string: String, raw: Bool) -> String {
        let quote: Character = python ? "'" : "\""
        guard !raw else { return "\(quote)\(string)\(quote)" }
        var result = String(quote)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"" where !python: result += next(4) == 0 ? "\\u0022" : "\\\""
            case "'" where python: result += "\\'"
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "/": result += next(2) == 0 ? "\\/" : "/"
            case "é": result += next(2) == 0 ? "\\u00e9" : "é"
            case "\u{1F600}": result += next(2) == 0 ? "\\ud83d\\ude00" : "\u{1F600}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        result.append(quote)
        return result
    }

    /// `name` with one ASCII character written as `\u00XX`, half of the time.
    private mutating func escapingOneCharacter(_ name: String) -> String {
        let characters = Array(name.unicodeScalars)
        guard next(2) == 0 else { return name }
        let position = next(characters.count)
        var result = ""
        for (index, scalar) in characters.enumerated() {
            if index == position {
                let hex = String(scalar.value, radix: 16)
                let digits = String(repeating: "0", count: 4 - hex.count) + hex
                result += "\\u" + (next(2) == 0 ? digits : digits.uppercased())
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private mutating func next(_ bound: Int) -> Int {
        Int(random.next() % UInt64(max(1, bound)))
    }

    private mutating func pick<T>(_ items: [T]) -> T {
        items[next(items.count)]
    }
}
