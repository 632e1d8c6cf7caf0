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
/// - in text that is neither (malformed JSON included), as `name=value`, `"name": value`,
///   `name: value` or `<name>value</name>`, whatever the value (an object or an array is
///   hidden to its closing bracket).
///
/// `Bearer` and `Basic` credentials are hidden wherever they appear, and so is the password
/// of a URL (`https://user:secret@host`).
///
/// ```swift
/// let redaction = Redaction.default.adding(headers: ["X-Tenant"], keys: ["otp", "pin"])
/// ```
public struct Redaction: Sendable, Equatable {
    /// The headers hidden by default, whatever ``headerNameFragments`` says. `DPoP` carries a
    /// proof (RFC 9449), a credential for its request.
    public static let defaultHeaders: Set<String> = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "DPoP",
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
    /// The names again, for matching bytes.
    let nameMatcher: SecretNameMatcher
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
        self.nameMatcher = SecretNameMatcher(
            keyNames: keyNames, headerNames: headerNames, publicHeaderNames: publicHeaderNames, fragments: fragments)
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
        // The text rules too: a JWT or a `;password=…` in the path.
        var result = redact(text: redactsCredentials ? redactUserPassword(in: String(rest)) : String(rest))
        if let query { result += "?" + redact(form: String(query)) }
        if let fragment { result += "#" + redact(form: String(fragment)) }
        return result
    }

    /// `text` with `name=value`, `"name": value` and `name: value` secrets (the whole value,
    /// whatever it is: a string, an object, an array, a word), `Header: value` lines of secret
    /// headers and `Bearer`/`Basic` credentials, JWTs and URL passwords hidden. For error
    /// descriptions and other free text.
    public func redact(text: String) -> String {
        var text = text
        let redacted = text.withUTF8 { bytes in
            var redactor = TextRedactor(redaction: self, input: bytes, limit: nil)
            return redactor.run().redacted
        }
        return redacted.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// A form body or query string (`a=1&b=2`) with the values of secret fields hidden. A
    /// value whose text holds a secret (`next=/cb?access_token=…`, a `Bearer` credential) is
    /// hidden too, and so is a piece without `=` that does.
    public func redact(form: String) -> String {
        redact(form: form, limit: nil).text
    }

    /// ``redact(form:)`` of the pairs up to about `limit` bytes of output.
    func redact(form: String, limit: Int?) -> (text: String, isComplete: Bool) {
        guard !keyNames.isEmpty || !headerNames.isEmpty || redactsCredentials else { return (form, true) }
        var output = ""
        var isFirst = true
        for pair in form.split(separator: "&", omittingEmptySubsequences: false) {
            if let limit, output.utf8.count >= limit { return (output, false) }
            if !isFirst { output += "&" }
            isFirst = false
            guard let equals = pair.firstIndex(of: "=") else {
                output += holdsSecret(Self.formDecoded(String(pair))) ? replacement : String(pair)
                continue
            }
            let rawName = pair[..<equals]
            let value = Self.formDecoded(String(pair[pair.index(after: equals)...]))
            let name = Self.formDecoded(String(rawName))
            let hidden =
                isSecret(key: name) || (redactsCredentials && Self.formOnlyKeys.contains(name)) || holdsSecret(value)
            output += hidden ? "\(rawName)=\(replacement)" : String(pair)
        }
        return (output, true)
    }

    /// Fields hidden in a query string or a form body only: an OAuth authorization code
    /// (RFC 6749 §4.1.2) travels as `code` in the callback's query and the token request's
    /// form, while a JSON `code` is usually a business status that an error should show.
    static let formOnlyKeys: Set<String> = ["code"]

    /// Whether free text redaction would change `text`.
    private func holdsSecret(_ text: String) -> Bool {
        TextRedactor.mightHoldSecret(text) && redact(text: text) != text
    }

    /// A form-encoded name or value as text: `+` is a space, `%xx` a byte.
    static func formDecoded(_ raw: String) -> String {
        let spaced = raw.contains("+") ? raw.replacingOccurrences(of: "+", with: " ") : raw
        guard spaced.contains("%") else { return spaced }
        return spaced.removingPercentEncoding ?? spaced
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
