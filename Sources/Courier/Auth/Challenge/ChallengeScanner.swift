/// Reads challenges from a header value's bytes (RFC 9110 §11.6.1):
///
///     challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
///     auth-param = token BWS "=" BWS ( token / quoted-string )
///
/// Challenges and their parameters share one comma-separated list: an element that starts
/// with a token followed by a space and then not `=` begins a new challenge; `name=value`
/// belongs to the challenge before it.
struct ChallengeScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func challenges(limit: Int) -> [AuthenticationChallenge] {
        var result: [AuthenticationChallenge] = []
        var scheme: String?
        var parameters: [String: String] = [:]
        var token68: String?
        func close() {
            if let scheme, result.count < limit {
                result.append(AuthenticationChallenge(scheme: scheme, parameters: parameters, token68: token68))
            }
            scheme = nil
            parameters = [:]
            token68 = nil
        }
        while index < bytes.count, result.count < limit {
            skipSpaceAndCommas()
            guard index < bytes.count else { break }
            guard let name = token() else {
                skipElement()
                continue
            }
            let afterName = index
            skipSpace()
            if peek == UInt8(ascii: "=") {
                // `name=value`, or `name = value`: a parameter of the current challenge; with
                // no challenge yet, an element that cannot be read.
                guard scheme != nil else {
                    skipElement()
                    continue
                }
                index += 1
                skipSpace()
                guard let value = quotedString() ?? token() else {
                    skipElement()
                    continue
                }
                let key = name.lowercased()
                if parameters[key] == nil { parameters[key] = value }
                skipSpace()
                if peek != nil, peek != UInt8(ascii: ",") { skipElement() }
                continue
            }
            // A new challenge: the scheme, then a token68, a first parameter, or nothing.
            close()
            scheme = name
            guard afterName < index, peek != nil, peek != UInt8(ascii: ",") else { continue }
            if let value = token68Element() {
                token68 = value
            }
        }
        close()
        return result
    }

    // MARK: Pieces

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// A token68 (`[A-Za-z0-9-._~+/]+ =*`) that is the whole element, or `nil` (then the
    /// element is a parameter, read by the loop).
    private mutating func token68Element() -> String? {
        let start = index
        while let byte = peek, Self.isToken68Character(byte) { index += 1 }
        guard index > start else { return nil }
        while peek == UInt8(ascii: "=") { index += 1 }
        let end = index
        skipSpace()
        if peek == nil || peek == UInt8(ascii: ",") {
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
        index = start
        return nil
    }

    private mutating func token() -> String? {
        let start = index
        while let byte = peek, Self.isTokenCharacter(byte) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// A quoted string, unescaped; `nil` (and nothing consumed) when none starts here or it
    /// never ends.
    private mutating func quotedString() -> String? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        var cursor = index + 1
        var value: [UInt8] = []
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "\"") {
                index = cursor + 1
                return String(decoding: value, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\"), cursor + 1 < bytes.count {
                cursor += 1
            }
            value.append(bytes[cursor])
            cursor += 1
        }
        return nil
    }

    private mutating func skipSpace() {
        while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    private mutating func skipSpaceAndCommas() {
        while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: ",") {
            index += 1
        }
    }

    /// Skips to the next comma outside a quoted string: an element that cannot be read.
    private mutating func skipElement() {
        while let byte = peek, byte != UInt8(ascii: ",") {
            if byte == UInt8(ascii: "\""), quotedString() != nil { continue }
            index += 1
        }
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func isToken68Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~+/".utf8.contains(byte)
        }
    }
}
