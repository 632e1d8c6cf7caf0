import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The secrets a request carries, as a ``Redaction`` names them: the values of its secret
/// headers (and the credential inside `Authorization`, with the password of a Basic one),
/// and of its secret query, form and JSON fields.
///
/// A server that echoes the token it was sent, in an error message, is then caught whatever
/// the token looks like.
struct RequestSecrets {
    let redaction: Redaction

    /// At most this many secrets are collected from one request.
    static let limit = 32

    func of(_ request: URLRequest) -> [String] {
        var secrets: [String] = []
        for (name, value) in request.allHTTPHeaderFields ?? [:] where redaction.isSecret(header: name) {
            secrets += credentials(inHeaderValue: value, isCookie: name.lowercased().contains("cookie"))
        }
        if let url = request.url, let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems {
            for item in items where redaction.isSecret(key: item.name) {
                secrets += item.value.map { [$0] } ?? []
            }
        }
        if let body = request.httpBody, !body.isEmpty, body.count <= 64 * 1024 {
            secrets += fields(inBody: body)
        }
        return Array(secrets.filter { !$0.isEmpty }.prefix(Self.limit))
    }

    /// `Bearer abc` gives `abc` (and the whole value); `Basic` also gives the password it
    /// encodes; a `Cookie` gives each cookie's value.
    private func credentials(inHeaderValue value: String, isCookie: Bool) -> [String] {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        var found = [trimmed]
        let parts = trimmed.split(separator: " ", maxSplits: 1)
        if parts.count == 2 {
            let credential = String(parts[1]).trimmingCharacters(in: .whitespaces)
            found.append(credential)
            if parts[0].lowercased() == "basic", let decoded = Data(base64Encoded: credential),
                let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":")
            {
                found.append(String(pair[pair.index(after: colon)...]))
            }
        }
        guard isCookie else { return found }
        for cookie in trimmed.split(separator: ";") {
            if let equals = cookie.firstIndex(of: "=") {
                found.append(String(cookie[cookie.index(after: equals)...]).trimmingCharacters(in: .whitespaces))
            }
        }
        return found
    }

    /// The values of the secret fields of a JSON or form body.
    private func fields(inBody body: Data) -> [String] {
        if let object = try? JSONSerialization.jsonObject(with: body) {
            var found: [String] = []
            collect(in: object, into: &found, depth: 0)
            return found
        }
        guard let text = String(data: body, encoding: .utf8) else { return [] }
        return text.split(separator: "&").compactMap { pair in
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            let name = Self.formDecoded(pair[..<equals])
            guard redaction.isSecret(key: name) else { return nil }
            return Self.formDecoded(pair[pair.index(after: equals)...])
        }
    }

    private func collect(in object: Any, into found: inout [String], depth: Int) {
        guard depth < 32, found.count < Self.limit else { return }
        if let dictionary = object as? [String: Any] {
            for (key, value) in dictionary {
                if redaction.isSecret(key: key), let string = value as? String {
                    found.append(string)
                } else {
                    collect(in: value, into: &found, depth: depth + 1)
                }
            }
        } else if let array = object as? [Any] {
            for element in array { collect(in: element, into: &found, depth: depth + 1) }
        }
    }

    private static func formDecoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
