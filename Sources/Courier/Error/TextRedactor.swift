import Foundation

/// Hides secrets in free text: `name=value`, `"name": "value"`, `name: value` and
/// `Header: value` pairs whose name is secret, and `Bearer`/`Basic` credentials.
///
/// A single pass over the text's scalars; names are read back from the separator.
struct TextRedactor {
    private let redaction: Redaction
    private let text: String
    private let scalars: [Unicode.Scalar]
    private var output = String.UnicodeScalarView()
    private var index = 0

    init(redaction: Redaction, text: String) {
        self.redaction = redaction
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    /// The redacted text.
    mutating func run() -> String {
        let hasNames = !redaction.keyNames.isEmpty || !redaction.headerNames.isEmpty
        guard hasNames || redaction.redactsCredentials else { return text }
        while index < scalars.count {
            let scalar = scalars[index]
            if redaction.redactsCredentials, isWordStart(index), redactCredential() {
                continue
            }
            if hasNames, scalar == "=", let name = bareName(before: index), redaction.isSecret(key: name) {
                copy(1)
                replaceValue()
                continue
            }
            if hasNames, scalar == ":", redactColonPair() {
                continue
            }
            copy(1)
        }
        return String(output)
    }

    // MARK: Pairs

    /// After a `:` whose name is secret: a quoted value, a bare value, or — for a header
    /// line — the rest of the line.
    private mutating func redactColonPair() -> Bool {
        var start = index - 1
        while start >= 0, scalars[start] == " " || scalars[start] == "\t" { start -= 1 }
        guard start >= 0 else { return false }
        let isQuoted = scalars[start] == "\""
        let name: String
        if isQuoted {
            var open = start - 1
            while open >= 0, scalars[open] != "\"" { open -= 1 }
            guard open >= 0 else { return false }
            name = String(String.UnicodeScalarView(scalars[(open + 1)..<start]))
        } else {
            var first = start
            while first > 0, Self.isNameScalar(scalars[first - 1]) { first -= 1 }
            guard Self.isNameScalar(scalars[start]) else { return false }
            name = String(String.UnicodeScalarView(scalars[first...start]))
        }
        // A field name (`id_token: abc def`) hides one value; a header (`Cookie: a=1; b=2`,
        // `X-Api-Key: …`) hides the rest of its line.
        let isHeaderLine =
            !isQuoted && redaction.isSecret(header: name)
            && !redaction.keyNames.contains(Redaction.normalized(name))
        guard isHeaderLine || redaction.isSecret(key: name) else { return false }
        copy(1)
        while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { copy(1) }
        if isHeaderLine {
            let lineEnd = scalars[index...].firstIndex { $0 == "\n" || $0 == "\r" } ?? scalars.count
            if lineEnd > index { output.append(contentsOf: redaction.replacement.unicodeScalars) }
            index = lineEnd
        } else {
            replaceValue()
        }
        return true
    }

    /// Replaces the value that starts at `index`: a quoted string keeps its quotes.
    private mutating func replaceValue() {
        guard index < scalars.count else { return }
        if scalars[index] == "\"" {
            var end = index + 1
            while end < scalars.count, scalars[end] != "\"" {
                end += scalars[end] == "\\" ? 2 : 1
            }
            output.append("\"")
            output.append(contentsOf: redaction.replacement.unicodeScalars)
            if end < scalars.count { output.append("\"") }
            index = min(end + 1, scalars.count)
            return
        }
        var end = index
        while end < scalars.count, !Self.isValueDelimiter(scalars[end]) { end += 1 }
        if end > index { output.append(contentsOf: redaction.replacement.unicodeScalars) }
        index = end
    }

    /// The name right before `position` (a `=`), percent-decoded, or `nil` if there is none.
    private func bareName(before position: Int) -> String? {
        var first = position
        while first > 0, Self.isNameScalar(scalars[first - 1]) || "[]%+".unicodeScalars.contains(scalars[first - 1]) {
            first -= 1
        }
        guard first < position else { return nil }
        let raw = String(String.UnicodeScalarView(scalars[first..<position]))
        return raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? raw
    }

    // MARK: Credentials

    /// At a word start: `Bearer <token>` or `Basic <token>` (any case) becomes
    /// `Bearer <redacted>`. An auth parameter such as `Basic realm="x"` is left alone.
    private mutating func redactCredential() -> Bool {
        for scheme in ["bearer", "basic"] {
            let schemeScalars = Array(scheme.unicodeScalars)
            let end = index + schemeScalars.count
            guard end < scalars.count,
                zip(scalars[index..<end], schemeScalars).allSatisfy({ Self.lowercased($0) == $1 }),
                scalars[end] == " "
            else { continue }
            var tokenStart = end
            while tokenStart < scalars.count, scalars[tokenStart] == " " { tokenStart += 1 }
            var tokenEnd = tokenStart
            while tokenEnd < scalars.count, Self.isTokenScalar(scalars[tokenEnd]) { tokenEnd += 1 }
            while tokenEnd < scalars.count, scalars[tokenEnd] == "=" { tokenEnd += 1 }
            guard tokenEnd > tokenStart else { return false }
            if tokenEnd < scalars.count, scalars[tokenEnd - 1] == "=",
                scalars[tokenEnd] == "\"" || Self.isNameScalar(scalars[tokenEnd])
            {
                return false  // `realm="x"`: a parameter, not a credential
            }
            copy(tokenStart - index)
            output.append(contentsOf: redaction.replacement.unicodeScalars)
            index = tokenEnd
            return true
        }
        return false
    }

    // MARK: Scalars

    private mutating func copy(_ count: Int) {
        output.append(contentsOf: scalars[index..<(index + count)])
        index += count
    }

    private func isWordStart(_ position: Int) -> Bool {
        position == 0 || !Self.isNameScalar(scalars[position - 1])
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-"
            || scalar == "."
    }

    private static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || "-._~+/".unicodeScalars.contains(scalar))
    }

    private static func isValueDelimiter(_ scalar: Unicode.Scalar) -> Bool {
        " \t\r\n&\"',;<>)}]".unicodeScalars.contains(scalar)
    }

    private static func lowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
    }
}
