import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which secrets Courier hides from what it prints, and what it writes in their place.
///
/// One value answers for every text Courier writes: ``CourierError`` descriptions use
/// ``default``, and `NetworkLoggerPlugin` uses the redaction of its configuration (``default``
/// unless you pass another).
///
/// A header is secret when its name is in ``headers`` or contains one of
/// ``headerNameFragments`` (`token`, `key`, `secret`, `auth`, `session`, `cookie`, `password`,
/// `signature` by default, so `X-Api-Key`, `Access-Token`, `X-Auth-Token` and `X-Session-Id`
/// are hidden), unless it is one of ``publicHeaders`` (the challenges `WWW-Authenticate` and
/// `Proxy-Authenticate`, which carry no credential and explain a 401). Names are matched
/// without regard to case.
///
/// Field names are matched without regard to case, `_` and `-`, so `access_token`,
/// `accessToken` and `Access-Token` are one name. A field is found:
/// - in JSON bodies, at any depth (the whole value is replaced, whatever its type);
/// - in form bodies, query strings and URL fragments, also inside brackets
///   (`user[password]=…`);
/// - in text that is neither, as `name=value`, `"name": "value"` or `name: value`.
///
/// `Bearer` and `Basic` credentials are hidden wherever they appear, and so is the password
/// of a URL (`https://user:secret@host`).
///
/// ```swift
/// let redaction = Redaction.default.adding(headers: ["X-Tenant"], keys: ["otp", "pin"])
/// ```
public struct Redaction: Sendable, Equatable {
    /// The headers hidden by default, whatever ``headerNameFragments`` says.
    public static let defaultHeaders: Set<String> = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
    ]
    /// The parts of a header name that make it secret by default.
    public static let defaultHeaderNameFragments: Set<String> = [
        "token", "key", "secret", "auth", "session", "cookie", "password", "signature",
    ]
    /// Headers shown although a fragment matches them: challenges, which hold no credential.
    public static let defaultPublicHeaders: Set<String> = ["WWW-Authenticate", "Proxy-Authenticate"]
    /// The fields hidden by default.
    public static let defaultKeys: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "password", "client_secret",
        "client_assertion", "assertion", "code_verifier", "api_key", "secret",
    ]

    /// Hides ``defaultHeaders``, headers matching ``defaultHeaderNameFragments`` and
    /// ``defaultKeys``. Error descriptions always use it.
    public static let `default` = Redaction()
    /// Hides nothing. Never use it where the logs leave the developer's machine.
    public static let none = Redaction(
        headers: [], keys: [], headerNameFragments: [], redactsCredentials: false)

    /// Names of headers whose values are hidden.
    public let headers: Set<String>
    /// Names of fields whose values are hidden.
    public let keys: Set<String>
    /// Parts of header names (lower case) that make a header secret.
    public let headerNameFragments: Set<String>
    /// Headers never hidden because of a fragment (a name in ``headers`` still is).
    public let publicHeaders: Set<String>
    /// What is written in place of a secret.
    public let replacement: String
    /// Whether `Bearer`/`Basic` credentials in free text and URL passwords are hidden.
    public let redactsCredentials: Bool

    let headerNames: Set<String>
    let keyNames: Set<String>
    private let fragments: [String]
    private let publicHeaderNames: Set<String>

    /// Creates a redaction.
    ///
    /// - Parameters:
    ///   - headers: header names whose values are hidden.
    ///   - keys: JSON, form and query field names whose values are hidden.
    ///   - headerNameFragments: a header whose name contains one of these (in any case) is
    ///     hidden too; pass `[]` to hide only `headers`.
    ///   - publicHeaders: headers that a fragment alone does not hide.
    ///   - replacement: what is written instead.
    ///   - redactsCredentials: whether `Bearer`/`Basic` credentials found in free text and
    ///     URL passwords are hidden too.
    public init(
        headers: Set<String> = Redaction.defaultHeaders,
        keys: Set<String> = Redaction.defaultKeys,
        headerNameFragments: Set<String> = Redaction.defaultHeaderNameFragments,
        publicHeaders: Set<String> = Redaction.defaultPublicHeaders,
        replacement: String = "<redacted>",
        redactsCredentials: Bool = true
    ) {
        self.headers = headers
        self.keys = keys
        self.headerNameFragments = headerNameFragments
        self.publicHeaders = publicHeaders
        self.replacement = replacement
        self.redactsCredentials = redactsCredentials
        self.headerNames = Set(headers.map { $0.lowercased() })
        self.keyNames = Set(keys.map(Self.normalized))
        self.fragments = headerNameFragments.map { $0.lowercased() }.filter { !$0.isEmpty }.sorted()
        self.publicHeaderNames = Set(publicHeaders.map { $0.lowercased() })
    }

    /// A copy that also hides `headers` and `keys`.
    public func adding(headers: Set<String> = [], keys: Set<String> = []) -> Redaction {
        Redaction(
            headers: self.headers.union(headers), keys: self.keys.union(keys),
            headerNameFragments: headerNameFragments, publicHeaders: publicHeaders,
            replacement: replacement, redactsCredentials: redactsCredentials)
    }

    /// Two redactions are equal when they hide the same things the same way.
    public static func == (lhs: Redaction, rhs: Redaction) -> Bool {
        lhs.headerNames == rhs.headerNames && lhs.keyNames == rhs.keyNames && lhs.fragments == rhs.fragments
            && lhs.publicHeaderNames == rhs.publicHeaderNames && lhs.replacement == rhs.replacement
            && lhs.redactsCredentials == rhs.redactsCredentials
    }

    // MARK: Matching

    /// Whether `name` is a secret header: listed in ``headers``, or containing one of
    /// ``headerNameFragments`` and not listed in ``publicHeaders``.
    public func isSecret(header name: String) -> Bool {
        let lowercased = name.lowercased()
        if headerNames.contains(lowercased) { return true }
        guard !fragments.isEmpty, !publicHeaderNames.contains(lowercased) else { return false }
        return fragments.contains { lowercased.contains($0) }
    }

    /// Whether `name` is a secret field. A bracketed name such as `user[password]` is a
    /// secret when any of its parts is.
    ///
    /// Secret header names count as secret fields too, so an echoed
    /// `{"headers": {"authorization": …, "x-api-key": …}}` is hidden as well: a name listed
    /// in ``headers``, or a dashed name (`x-api-key`, not `token_type`) that the header rule
    /// finds secret.
    public func isSecret(key name: String) -> Bool {
        if keyNames.contains(Self.normalized(name)) || headerNames.contains(name.lowercased()) { return true }
        if name.contains("-"), isSecret(header: name) { return true }
        guard name.contains("[") else { return false }
        return name.split(whereSeparator: { $0 == "[" || $0 == "]" })
            .contains { keyNames.contains(Self.normalized(String($0))) }
    }

    /// `access_token`, `accessToken` and `Access-Token` all become `accesstoken`.
    static func normalized(_ name: String) -> String {
        String(name.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    // MARK: Redacting

    /// `headers` with the values of secret headers replaced, and secrets in the other
    /// values (a token in a `Location` URL, say) hidden.
    public func redact(headers: [String: String]) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in headers {
            result[name] = isSecret(header: name) ? replacement : redact(text: value)
        }
        return result
    }

    /// `headers` redacted and written on one line as `["Name": "value", …]`, sorted by name.
    /// Quotes, backslashes and control characters inside names and values are escaped as in
    /// a Swift string literal, so `WWW-Authenticate: Bearer error="invalid_token"` reads
    /// `"WWW-Authenticate": "Bearer error=\"invalid_token\""`: one line, one way to read it.
    public func describe(headers: [String: String]) -> String {
        let pairs = redact(headers: headers).sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { "\"\(Self.escaped($0.key))\": \"\(Self.escaped($0.value))\"" }
        return "[" + pairs.joined(separator: ", ") + "]"
    }

    /// `text` with `"`, `\\` and control characters escaped.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F })
        else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `url` as text, with secret query and fragment fields and the password hidden.
    public func redact(url: URL) -> String {
        redact(urlString: url.absoluteString)
    }

    /// A URL string with secret query and fragment fields and the password hidden.
    public func redact(urlString: String) -> String {
        var rest = Substring(urlString)
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var result = redactsCredentials ? redactUserPassword(in: String(rest)) : String(rest)
        if let query { result += "?" + redact(form: String(query)) }
        if let fragment { result += "#" + redact(form: String(fragment)) }
        return result
    }

    /// A body with its secrets hidden. JSON keeps its text, key order, numbers and layout;
    /// only the values of secret fields (at any depth) and secrets inside strings change. A
    /// form body has the values of secret fields replaced; any other text is searched for
    /// `name=value` and `"name": value` pairs. Binary data is returned as it is. A body
    /// without secrets is returned unchanged, byte for byte.
    public func redact(body: Data, contentType: String?) -> Data {
        guard !body.isEmpty else { return body }
        if let redacted = redact(json: body) { return redacted }
        guard let text = String(data: body, encoding: .utf8) else { return body }
        let isForm =
            contentType?.lowercased().contains("application/x-www-form-urlencoded") == true
            || (Self.looksLikeForm(text) && contentType?.lowercased().contains("json") != true)
        let redacted = isForm ? redact(form: text) : redact(text: text)
        return redacted == text ? body : Data(redacted.utf8)
    }

    /// `text` with `name=value`, `"name": "value"` and `name: value` secrets, `Header: value`
    /// lines of secret headers and `Bearer`/`Basic` credentials hidden. For error
    /// descriptions and other free text.
    public func redact(text: String) -> String {
        var scanner = TextRedactor(redaction: self, text: text)
        var result = scanner.run()
        guard redactsCredentials else { return result }
        if result.contains("://") { result = redactURLPasswords(in: result) }
        if result.contains("eyJ") { result = redactJWTs(in: result) }
        return result
    }

    /// A form body or query string (`a=1&b=2`) with the values of secret fields hidden.
    public func redact(form: String) -> String {
        guard !keyNames.isEmpty || !headerNames.isEmpty else { return form }
        let pairs = form.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let rawName = pair[..<equals]
            let name =
                String(rawName).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(rawName)
            return isSecret(key: name) ? "\(rawName)=\(replacement)" : String(pair)
        }
        return pairs.joined(separator: "&")
    }

    private static func looksLikeForm(_ text: String) -> Bool {
        text.contains("=") && !text.contains(where: { $0 == " " || $0 == "\n" || $0 == "\"" || $0 == "{" })
    }

    /// Every JWT (`eyJ…`, three base64url segments) in free text, hidden: a token quoted
    /// without its `Bearer` is still a token.
    private func redactJWTs(in text: String) -> String {
        func isBase64URL(_ character: Character) -> Bool {
            character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
        }
        var output = ""
        var rest = Substring(text)
        while let start = rest.range(of: "eyJ") {
            let isWordStart =
                start.lowerBound == rest.startIndex || !isBase64URL(rest[rest.index(before: start.lowerBound)])
            var end = start.lowerBound
            var dots = 0
            while end < rest.endIndex, isBase64URL(rest[end]) || (rest[end] == "." && dots < 2) {
                if rest[end] == "." { dots += 1 }
                end = rest.index(after: end)
            }
            output += rest[..<start.lowerBound]
            output += isWordStart && dots == 2 ? Substring(replacement) : rest[start.lowerBound..<end]
            rest = rest[end...]
        }
        return output + rest
    }

    /// Every `scheme://user:secret@host` in free text, with the password hidden.
    private func redactURLPasswords(in text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let schemeEnd = rest.range(of: "://") {
            output += rest[..<schemeEnd.upperBound]
            rest = rest[schemeEnd.upperBound...]
            let authorityEnd =
                rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" || $0.isWhitespace || $0 == "\"" || $0 == "'" }
                ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                output += rest[...colon] + replacement
                rest = rest[at...]
            }
        }
        return output + rest
    }

    /// `scheme://user:secret@host/…` → `scheme://user:<redacted>@host/…`.
    private func redactUserPassword(in url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = url[authorityStart...].firstIndex(where: { $0 == "/" }) ?? url.endIndex
        let authority = url[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return url
        }
        return String(url[..<url.index(after: colon)]) + replacement + String(url[at...])
    }
}
