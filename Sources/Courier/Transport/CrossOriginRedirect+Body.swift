import Foundation

/// A credential stays with its origin in the body too: a redirect that would carry a body to
/// another origin first asks whether the body holds one.
extension CrossOriginRedirect {
    /// The largest body that ``bodyCarriesCredential(_:contentType:)`` reads: 1 MiB. Login,
    /// token and form bodies are a few hundred bytes.
    public static let largestExaminedBody = 1024 * 1024

    /// Whether `body`, sent with the `Content-Type` `contentType`, carries a credential, so
    /// that a redirect must not take it to another origin.
    ///
    /// A body carries one when ``Redaction/default`` would hide something in it: a field such
    /// as `password`, `refresh_token`, `client_secret` or `access_token` at any depth of a
    /// JSON body or in a form body, a `Bearer` or `Basic` credential, a JWT or a URL
    /// password in its text; or, in a `multipart/form-data` body, a part of such a name or a
    /// form field (a part without a file name) whose value holds one. A body larger than
    /// ``largestExaminedBody`` is not read: a textual one (JSON, a form, multipart, text or
    /// XML, or no `Content-Type` at all) counts as carrying a credential, since nobody can
    /// tell; a binary one (an image, `application/octet-stream`) does not.
    ///
    /// Courier's transports return a redirect that would carry such a body to another origin
    /// as the response, unfollowed. A custom ``HTTPTransport`` that follows redirects should
    /// do the same:
    ///
    /// ```swift
    /// if CrossOriginRedirect.isCrossOrigin(from: currentURL, to: location),
    ///     let body, CrossOriginRedirect.bodyCarriesCredential(body, contentType: contentType)
    /// {
    ///     return redirectResponse
    /// }
    /// ```
    public static func bodyCarriesCredential(_ body: Data, contentType: String?) -> Bool {
        guard !body.isEmpty else { return false }
        guard body.count <= largestExaminedBody else { return isTextual(contentType) }
        if let boundary = MultipartFormat.boundary(fromContentType: contentType), !boundary.isEmpty {
            return multipartCarriesCredential(body, boundary: boundary)
        }
        return Redaction.default.redact(body: body, contentType: contentType) != body
    }

    /// Whether the file at `file`, sent as a body with the `Content-Type` `contentType`,
    /// carries a credential; see ``bodyCarriesCredential(_:contentType:)``. A file that
    /// cannot be read counts as carrying one.
    public static func bodyCarriesCredential(contentsOf file: URL, contentType: String?) -> Bool {
        guard let size = MultipartFormat.regularFileSize(file) else { return true }
        guard size <= UInt64(largestExaminedBody) else { return isTextual(contentType) }
        guard let body = try? Data(contentsOf: file) else { return true }
        return bodyCarriesCredential(body, contentType: contentType)
    }

    /// Whether a body of `contentType` is text that may hold fields: JSON, a form, multipart,
    /// text or XML, or an unknown type.
    static func isTextual(_ contentType: String?) -> Bool {
        guard
            let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
                .lowercased(), !mediaType.isEmpty
        else { return true }
        return mediaType.hasPrefix("text/") || mediaType.hasPrefix("multipart/") || mediaType.hasSuffix("json")
            || mediaType.hasSuffix("xml") || mediaType == "application/x-www-form-urlencoded"
            || mediaType == "application/graphql"
    }

    /// Whether a `multipart/form-data` body has a part named like a secret field, or a form
    /// field whose value holds a credential. A body that is not well formed is read as text.
    private static func multipartCarriesCredential(_ body: Data, boundary: String) -> Bool {
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        var parts: [Range<Data.Index>] = []
        var searchFrom = body.startIndex
        var partStart: Data.Index?
        while let found = body.range(of: delimiter, in: searchFrom..<body.endIndex) {
            if let start = partStart { parts.append(start..<found.lowerBound) }
            partStart = found.upperBound
            searchFrom = found.upperBound
        }
        guard !parts.isEmpty else {
            return Redaction.default.redact(body: body, contentType: "text/plain") != body
        }
        for part in parts {
            guard let end = body.range(of: headerEnd, in: part) else { continue }
            let headers = String(decoding: body[part.lowerBound..<end.lowerBound], as: UTF8.self)
            let disposition = headerValue("Content-Disposition", in: headers)
            if let name = disposition.flatMap({ parameter("name", in: $0) }), Redaction.default.isSecret(key: name) {
                return true
            }
            // A file's bytes are the upload itself; a form field's value may be a credential.
            guard disposition.flatMap({ parameter("filename", in: $0) }) == nil else { continue }
            var value = body[end.upperBound..<part.upperBound]
            if value.suffix(2) == Data("\r\n".utf8) { value = value.dropLast(2) }
            if bodyCarriesCredential(Data(value), contentType: headerValue("Content-Type", in: headers)) {
                return true
            }
        }
        return false
    }

    /// The value of the header `name` in a part's header block.
    private static func headerValue(_ name: String, in headers: String) -> String? {
        for line in headers.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":"),
                line[..<colon].trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(name) == .orderedSame
            else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The parameter `name` of a `Content-Disposition` value (`form-data; name="password"`).
    private static func parameter(_ name: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            let key = pair.first?.trimmingCharacters(in: .whitespaces).lowercased()
            // `filename*=UTF-8''…` (RFC 5987) names a file as well as `filename=`.
            guard pair.count == 2, key == name || key == name + "*" else { continue }
            var text = pair[1].trimmingCharacters(in: .whitespaces)
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                text = String(text.dropFirst().dropLast())
            }
            return text
        }
        return nil
    }
}
