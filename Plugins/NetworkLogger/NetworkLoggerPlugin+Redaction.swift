import Courier
import Foundation

extension NetworkLoggerPlugin {
    /// Which secrets a ``NetworkLoggerPlugin`` hides, and what it writes in their place.
    ///
    /// Header names and field names are matched without regard to case, and field names
    /// also without regard to `_` and `-`, so `access_token`, `accessToken` and
    /// `Access-Token` are one name. A field is found:
    /// - in JSON bodies, at any depth (the whole value is replaced, whatever its type);
    /// - in form bodies, query strings and URL fragments, also inside brackets
    ///   (`user[password]=…`);
    /// - in text that is neither, as `name=value`, `"name": "value"` or `name: value`.
    ///
    /// `Bearer` and `Basic` credentials are hidden wherever they appear, and so is the
    /// password of a URL (`https://user:secret@host`).
    ///
    /// ```swift
    /// let redaction = NetworkLoggerPlugin.Redaction.default
    ///     .adding(headers: ["X-Api-Key"], keys: ["otp", "pin"])
    /// ```
    public struct Redaction: Sendable, Equatable {
        /// The headers hidden by default.
        public static let defaultHeaders: Set<String> = [
            "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
        ]
        /// The fields hidden by default.
        public static let defaultKeys: Set<String> = [
            "access_token", "refresh_token", "id_token", "password", "client_secret",
        ]

        /// Hides ``defaultHeaders`` and ``defaultKeys``.
        public static let `default` = Redaction()
        /// Hides nothing. Never use it where the logs leave the developer's machine.
        public static let none = Redaction(headers: [], keys: [], redactsCredentials: false)

        /// Names of headers whose values are hidden.
        public let headers: Set<String>
        /// Names of fields whose values are hidden.
        public let keys: Set<String>
        /// What is written in place of a secret.
        public let replacement: String
        /// Whether `Bearer`/`Basic` credentials in free text and URL passwords are hidden.
        public let redactsCredentials: Bool

        let headerNames: Set<String>
        let keyNames: Set<String>

        /// Creates a redaction.
        ///
        /// - Parameters:
        ///   - headers: header names whose values are hidden.
        ///   - keys: JSON, form and query field names whose values are hidden.
        ///   - replacement: what is written instead.
        ///   - redactsCredentials: whether `Bearer`/`Basic` credentials found in free text and
        ///     URL passwords are hidden too.
        public init(
            headers: Set<String> = Redaction.defaultHeaders,
            keys: Set<String> = Redaction.defaultKeys,
            replacement: String = "<redacted>",
            redactsCredentials: Bool = true
        ) {
            self.headers = headers
            self.keys = keys
            self.replacement = replacement
            self.redactsCredentials = redactsCredentials
            self.headerNames = Set(headers.map { $0.lowercased() })
            self.keyNames = Set(keys.map(Self.normalized))
        }

        /// A copy that also hides `headers` and `keys`.
        public func adding(headers: Set<String> = [], keys: Set<String> = []) -> Redaction {
            Redaction(
                headers: self.headers.union(headers), keys: self.keys.union(keys), replacement: replacement,
                redactsCredentials: redactsCredentials)
        }

        /// Two redactions are equal when they hide the same things the same way.
        public static func == (lhs: Redaction, rhs: Redaction) -> Bool {
            lhs.headerNames == rhs.headerNames && lhs.keyNames == rhs.keyNames
                && lhs.replacement == rhs.replacement && lhs.redactsCredentials == rhs.redactsCredentials
        }

        // MARK: Matching

        /// Whether `name` is a secret header.
        public func isSecret(header name: String) -> Bool {
            headerNames.contains(name.lowercased())
        }

        /// Whether `name` is a secret field. A bracketed name such as `user[password]` is a
        /// secret when any of its parts is.
        ///
        /// Secret header names count as secret fields too, so an echoed
        /// `{"headers": {"authorization": …}}` is hidden as well.
        public func isSecret(key name: String) -> Bool {
            if keyNames.contains(Self.normalized(name)) || headerNames.contains(name.lowercased()) { return true }
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

        /// A body with its secrets hidden: JSON is parsed and the values of secret fields
        /// replaced at any depth; a form body has the values of secret fields replaced; any
        /// other text is searched for `name=value` and `"name": value` pairs. Binary data is
        /// returned as it is. A body without secrets is returned unchanged.
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

        /// `text` with `name=value`, `"name": "value"` and `name: value` secrets and
        /// `Bearer`/`Basic` credentials hidden. For error descriptions and other free text.
        public func redact(text: String) -> String {
            var scanner = TextRedactor(redaction: self, text: text)
            return scanner.run()
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

        /// The JSON body with secret fields replaced, `nil` when `body` is not JSON.
        private func redact(json body: Data) -> Data? {
            guard let first = body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }),
                first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
                let object = try? JSONSerialization.jsonObject(with: body)
            else { return nil }
            var changed = false
            let redacted = redact(jsonValue: object, changed: &changed)
            guard changed else { return body }
            return try? JSONSerialization.data(
                withJSONObject: redacted, options: [.sortedKeys, .withoutEscapingSlashes])
        }

        private func redact(jsonValue value: Any, changed: inout Bool) -> Any {
            switch value {
            case let object as [String: Any]:
                var result: [String: Any] = [:]
                for (key, member) in object {
                    if isSecret(key: key) {
                        result[key] = replacement
                        changed = true
                    } else {
                        result[key] = redact(jsonValue: member, changed: &changed)
                    }
                }
                return result
            case let array as [Any]:
                return array.map { redact(jsonValue: $0, changed: &changed) }
            case let string as String:
                let redacted = redact(text: string)
                if redacted != string { changed = true }
                return redacted
            default:
                return value
            }
        }

        private static func looksLikeForm(_ text: String) -> Bool {
            text.contains("=") && !text.contains(where: { $0 == " " || $0 == "\n" || $0 == "\"" || $0 == "{" })
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
}
