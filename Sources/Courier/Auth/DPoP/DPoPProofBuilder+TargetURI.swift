import Foundation

extension DPoPProofBuilder {
    /// The `htu` of a proof for `url` (RFC 9449 §4.2): the URL without its query and fragment,
    /// normalised as RFC 3986 §6.2.2 and §6.2.3 describe, so that it matches what the server
    /// computes from the request it receives.
    ///
    /// The scheme and host are lowercased, the scheme's default port (80 for `http`, 443 for
    /// `https`) is dropped, user information is dropped, an empty path becomes `/`, and
    /// percent-encodings in the path are written with uppercase hex digits. The path is otherwise
    /// kept as sent.
    ///
    /// - Throws: ``DPoPError/unsupportedURL(_:)`` when `url` is not an absolute `http` or `https`
    ///   URL with a host.
    public static func targetURI(for url: URL) throws(DPoPError) -> String {
        // Read from the URL itself, not through URLComponents, which on Linux costs more than
        // the rest of the proof; every request signed with DPoP pays for this.
        let url = url.absoluteURL
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .unsupportedURL("only http and https URLs can be signed")
        }
        guard var host = url.host(percentEncoded: true)?.lowercased(), !host.isEmpty else {
            throw .unsupportedURL("it has no host")
        }
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        var uri = "\(scheme)://\(host)"
        if let port = url.port, port != (scheme == "https" ? 443 : 80) { uri += ":\(port)" }
        let path = url.path(percentEncoded: true)
        uri += path.isEmpty ? "/" : uppercasingPercentEncodings(path)
        return uri
    }

    /// `path` with the two hex digits after each `%` uppercased (RFC 3986 §6.2.2.1).
    private static func uppercasingPercentEncodings(_ path: String) -> String {
        guard path.contains("%") else { return path }
        var result = ""
        var remainingHexDigits = 0
        for character in path {
            if remainingHexDigits > 0 {
                result += character.uppercased()
                remainingHexDigits -= 1
            } else {
                result.append(character)
                if character == "%" { remainingHexDigits = 2 }
            }
        }
        return result
    }
}
