import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Redaction {
    /// `message`, written by a server for people (an OAuth `error_description`, a problem's
    /// `detail`), with the secrets it may echo hidden and its words kept.
    ///
    /// ``redact(text:)`` reads `invalid_token: The access token has expired.` as the line of a
    /// secret header and hides the explanation, which is the clue a developer needs. Here only
    /// what looks like a secret goes; see ``ServerMessageRedactor``.
    func redact(serverMessage message: String, sentWith request: URLRequest?) -> String {
        ServerMessageRedactor(redaction: self, request: request).redact(message)
    }
}

/// Hides secrets in a server's message to people while keeping its words.
///
/// An error message is not a secret, but some servers echo a token inside it. Hidden:
/// - the request's own secrets, wherever they appear: its credential, the values of its secret
///   headers, and of its secret query, form and JSON fields;
/// - token-shaped words: a JWT, a UUID, or a run of 16 or more letters and digits (base64's
///   `+`, `/` and `=` may stand between them) that is hex, or looks random (lower case, upper
///   case and digits alternate at least every third character), or is 32 long and mixes
///   letters and digits;
/// - the credential after `Bearer` or `Basic` (a plain lower-case word such as
///   `authentication` stays: it is prose, not a credential);
/// - the value of `name=value` and `"name": value` when `name` is a secret field;
/// - in a URL, the password and the secret query fields.
///
/// `name: value` without quotes is prose (`Invalid token: the signature does not match`),
/// so it is left alone unless the value itself looks like a secret.
struct ServerMessageRedactor {
    private let redaction: Redaction
    /// The request's secrets, longest first, so a secret that contains another goes whole.
    private let knownSecrets: [[Unicode.Scalar]]
    private let hidesNames: Bool

    /// The shortest secret of the request that is looked for in the message: shorter ones
    /// would hide ordinary words.
    static let shortestKnownSecret = 4
    /// A known secret at least this long is hidden even inside a longer word.
    static let secretHiddenInsideWords = 8

    init(redaction: Redaction, request: URLRequest?) {
        self.redaction = redaction
        self.hidesNames = !redaction.keyNames.isEmpty || !redaction.headerNames.isEmpty
        let secrets = request.map { RequestSecrets(redaction: redaction).of($0) } ?? []
        self.knownSecrets = Set(secrets.filter { $0.count >= Self.shortestKnownSecret })
            .sorted { $0.count > $1.count }
            .map { Array($0.unicodeScalars) }
    }

    /// `message` with its secrets hidden.
    func redact(_ message: String) -> String {
        guard hidesNames || redaction.redactsCredentials || !knownSecrets.isEmpty else { return message }
        var pass = Pass(redactor: self, scalars: Array(message.unicodeScalars))
        return pass.run()
    }

    // MARK: The scan

    private struct Pass {
        let redactor: ServerMessageRedactor
        let scalars: [Unicode.Scalar]
        var output = String.UnicodeScalarView()
        var index = 0
        /// Set after `Bearer` or `Basic`: the next word is the credential.
        var expectsCredential = false

        init(redactor: ServerMessageRedactor, scalars: [Unicode.Scalar]) {
            self.redactor = redactor
            self.scalars = scalars
        }

        mutating func run() -> String {
            while index < scalars.count {
                if let length = redactor.knownSecretLength(in: scalars, at: index) {
                    hide(length)
                    expectsCredential = false
                    continue
                }
                let scalar = scalars[index]
                guard ServerMessageRedactor.isWordScalar(scalar), isWordStart(index) else {
                    if !(scalar == " " || scalar == "\t") { expectsCredential = false }
                    copy(1)
                    continue
                }
                if let urlEnd = urlEnd(at: index) {
                    copyURL(upTo: urlEnd)
                    continue
                }
                word()
            }
            return String(output)
        }

        /// One word, and after it the value it names when it is a secret field.
        private mutating func word() {
            let end = wordEnd(from: index)
            let word = String(String.UnicodeScalarView(scalars[index..<end]))
            let afterCredentialScheme = expectsCredential
            expectsCredential = false
            let isParameterName = end < scalars.count && scalars[end] == "="
            if afterCredentialScheme, !isParameterName, ServerMessageRedactor.looksLikeCredential(word) {
                hide(end - index)
                return
            }
            if redactor.redaction.redactsCredentials, ServerMessageRedactor.isTokenShaped(word) {
                hide(end - index)
                return
            }
            copy(end - index)
            let lowercased = word.lowercased()
            if redactor.redaction.redactsCredentials, lowercased == "bearer" || lowercased == "basic" {
                expectsCredential = true
                return
            }
            if redactor.hidesNames, redactor.redaction.isSecret(key: word) {
                hideValue(namedBy: word)
            }
        }

        /// After a secret field's name: `=value`, `="value"`, or, when the name was quoted,
        /// `": value` and `": "value"`.
        private mutating func hideValue(namedBy name: String) {
            var cursor = index
            let isQuotedName =
                index - name.unicodeScalars.count - 1 >= 0
                && ServerMessageRedactor.isQuote(scalars[index - name.unicodeScalars.count - 1])
            if isQuotedName, cursor < scalars.count, ServerMessageRedactor.isQuote(scalars[cursor]) { cursor += 1 }
            while cursor < scalars.count, scalars[cursor] == " " { cursor += 1 }
            guard cursor < scalars.count, scalars[cursor] == "=" || (isQuotedName && scalars[cursor] == ":") else {
                return
            }
            cursor += 1
            while cursor < scalars.count, scalars[cursor] == " " { cursor += 1 }
            guard cursor < scalars.count else { return }
            copy(cursor - index)
            if ServerMessageRedactor.isQuote(scalars[index]) {
                let quote = scalars[index]
                var close = index + 1
                while close < scalars.count, scalars[close] != quote { close += scalars[close] == "\\" ? 2 : 1 }
                copy(1)
                hide(min(close, scalars.count) - index)
                return
            }
            var end = index
            while end < scalars.count, !ServerMessageRedactor.isValueDelimiter(scalars[end]) { end += 1 }
            hide(end - index)
        }

        /// Where the URL that starts at `start` (`scheme://…`) ends, or `nil` if none does.
        private func urlEnd(at start: Int) -> Int? {
            var cursor = start
            while cursor < scalars.count, scalars[cursor].properties.isAlphabetic, scalars[cursor].isASCII {
                cursor += 1
            }
            guard cursor > start, cursor + 2 < scalars.count, scalars[cursor] == ":", scalars[cursor + 1] == "/",
                scalars[cursor + 2] == "/"
            else { return nil }
            var end = cursor + 3
            while end < scalars.count,
                !(scalars[end].properties.isWhitespace || "\"'<>".unicodeScalars.contains(scalars[end]))
            {
                end += 1
            }
            // A sentence's punctuation after the URL is not part of it.
            while end > cursor + 3, ".,;:!?)]".unicodeScalars.contains(scalars[end - 1]) { end -= 1 }
            return end
        }

        /// The URL with its password and secret query fields hidden, and every token-shaped
        /// part of its path or query.
        private mutating func copyURL(upTo end: Int) {
            let url = String(String.UnicodeScalarView(scalars[index..<end]))
            index = end
            var redacted = redactor.redaction.redact(urlString: url)
            if redactor.redaction.redactsCredentials {
                redacted = ServerMessageRedactor.hidingTokenShapedParts(
                    of: redacted, replacement: redactor.redaction.replacement)
            }
            output.append(contentsOf: redacted.unicodeScalars)
        }

        private func wordEnd(from start: Int) -> Int {
            var end = start
            while end < scalars.count, ServerMessageRedactor.isWordScalar(scalars[end]) { end += 1 }
            // Base64 padding belongs to the word; a `=` followed by a value names it.
            var padding = end
            while padding < scalars.count, padding - end < 2, scalars[padding] == "=" { padding += 1 }
            if padding > end, padding == scalars.count || !ServerMessageRedactor.isWordScalar(scalars[padding]),
                padding == scalars.count || !ServerMessageRedactor.isQuote(scalars[padding])
            {
                end = padding
            }
            // A full stop ending a sentence is not part of the word before it.
            while end > start + 1, scalars[end - 1] == "." { end -= 1 }
            return end
        }

        private func isWordStart(_ position: Int) -> Bool {
            position == 0 || !ServerMessageRedactor.isWordScalar(scalars[position - 1])
        }

        private mutating func copy(_ count: Int) {
            output.append(contentsOf: scalars[index..<(index + count)])
            index += count
        }

        private mutating func hide(_ count: Int) {
            guard count > 0 else { return }
            output.append(contentsOf: redactor.redaction.replacement.unicodeScalars)
            index += count
        }
    }

    /// The length of the known secret that starts at `position`, if one does: at a word
    /// boundary, or anywhere for a long one.
    private func knownSecretLength(in scalars: [Unicode.Scalar], at position: Int) -> Int? {
        for secret in knownSecrets where position + secret.count <= scalars.count {
            guard scalars[position] == secret[0], scalars[position..<(position + secret.count)].elementsEqual(secret)
            else { continue }
            if secret.count >= Self.secretHiddenInsideWords { return secret.count }
            let end = position + secret.count
            let startsWord = position == 0 || !Self.isWordScalar(scalars[position - 1])
            let endsWord = end == scalars.count || !Self.isWordScalar(scalars[end])
            if startsWord, endsWord { return secret.count }
        }
        return nil
    }

    // MARK: Shapes

    /// Whether `word` looks like a token rather than a word: a JWT, a UUID, or a long run of
    /// letters and digits that is hex, looks random, or mixes letters and digits at length 32.
    static func isTokenShaped(_ word: String) -> Bool {
        let scalars = Array(word.unicodeScalars)
        guard scalars.count >= 16 else { return false }
        if isJWT(scalars) || isUUID(scalars) { return true }
        // `.`, `-`, `_` and `~` join the parts of names (`docs.example.com`, `invalid_token`);
        // base64's `+`, `/` and `=` stay inside a run.
        return scalars.split(whereSeparator: { ".-_~".unicodeScalars.contains($0) }).contains { looksRandom(Array($0)) }
    }
    /// `Bearer` and `Basic` are followed by a credential, or by prose (`Basic authentication
    /// is required`): a credential has a digit, a capital after its first letter, a symbol, or
    /// 16 characters.
    static func looksLikeCredential(_ word: String) -> Bool {
        let scalars = Array(word.unicodeScalars)
        return scalars.count >= 16
            || scalars.contains { ("0"..."9").contains($0) || !$0.properties.isAlphabetic }
            || scalars.dropFirst().contains { ("A"..."Z").contains($0) }
    }

    /// Three base64url segments, the first one a JSON header (`eyJ`).
    private static func isJWT(_ scalars: [Unicode.Scalar]) -> Bool {
        guard scalars.starts(with: "eyJ".unicodeScalars) else { return false }
        let segments = scalars.split(separator: ".", omittingEmptySubsequences: false)
        return segments.count == 3 && segments[0].count > 3 && segments[1].count > 0
            && segments.allSatisfy { $0.allSatisfy { isAlphanumeric($0) || $0 == "-" || $0 == "_" } }
    }

    /// `8-4-4-4-12` hex digits.
    private static func isUUID(_ scalars: [Unicode.Scalar]) -> Bool {
        let groups = scalars.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(isHexDigit) }
    }

    /// A run that no one would write: 16 or more letters and digits that are hex digits with
    /// a letter and a digit among them, or whose character classes (lower, upper, digit)
    /// change at least every third character, or 32 or more that mix letters and digits with
    /// no `/` between them (a long path mixes them too).
    private static func looksRandom(_ run: [Unicode.Scalar]) -> Bool {
        let characters = run.filter(isAlphanumeric)
        guard characters.count >= 16 else { return false }
        let hasDigit = characters.contains { ("0"..."9").contains($0) }
        let hasLetter = characters.contains { !("0"..."9").contains($0) }
        if hasDigit, hasLetter, characters.allSatisfy(isHexDigit) { return true }
        if characters.count >= 32, hasDigit, hasLetter, !run.contains("/") { return true }
        var changes = 0
        for (previous, next) in zip(characters, characters.dropFirst())
        where characterClass(previous) != characterClass(next) {
            changes += 1
        }
        return changes * 3 >= characters.count
    }

    /// The parts of a URL between `/`, `?`, `&`, `=` and `#` that are token-shaped, hidden.
    static func hidingTokenShapedParts(of url: String, replacement: String) -> String {
        var output = ""
        var part = ""
        for character in url + "/" {
            if "/?&=#".contains(character) {
                output += isTokenShaped(part) ? replacement : part
                output.append(character)
                part = ""
            } else {
                part.append(character)
            }
        }
        return String(output.dropLast())
    }

    // MARK: Scalars

    private static func characterClass(_ scalar: Unicode.Scalar) -> Int {
        if ("0"..."9").contains(scalar) { return 0 }
        if ("A"..."Z").contains(scalar) { return 1 }
        return 2
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    private static func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar) || ("a"..."f").contains(scalar) || ("A"..."F").contains(scalar)
    }

    /// What a token or a field name is made of: ASCII letters, digits and `-_.~+/`.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        isAlphanumeric(scalar) || "-_.~+/".unicodeScalars.contains(scalar)
    }

    private static func isQuote(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\"" || scalar == "'"
    }

    private static func isValueDelimiter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || "&\"',;<>)}]".unicodeScalars.contains(scalar)
    }
}
