import Foundation

/// The rules an OAuth URL must follow before Courier sends anything to it.
enum OAuthURLPolicy {
    /// Whether `url` is `https`, or `http` to a loopback address (`127.0.0.0/8`, `::1`,
    /// `localhost`), which RFC 8252 §8.3 and RFC 8414 allow for development and tests.
    static func isAllowed(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": return url.host.map { !$0.isEmpty } ?? false
        case "http": return isLoopback(url)
        default: return false
        }
    }

    /// Whether `url`'s host is a loopback address.
    static func isLoopback(_ url: URL) -> Bool {
        guard var host = url.host?.lowercased() else { return false }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ UInt8($0) != nil }) else { return false }
        return octets[0] == "127"
    }

    /// `https://host/.well-known/<name>/<path of url>` (RFC 8414 §3.1, RFC 9728 §3.1): the
    /// well-known segment goes between the host and the path, and a path's trailing slash is
    /// dropped.
    static func wellKnown(_ name: String, insertedInto url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = "/.well-known/\(name)\(path)"
        components.percentEncodedQuery = nil
        components.fragment = nil
        return components.url
    }

    /// `https://host/path/.well-known/<name>`: OpenID Connect Discovery 1.0 §4's form, the
    /// segment appended to the issuer.
    static func wellKnown(_ name: String, appendedTo url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = "\(path)/.well-known/\(name)"
        components.percentEncodedQuery = nil
        components.fragment = nil
        return components.url
    }

    /// The origin of `url` (`https://host:port`, the default port made explicit), for
    /// same-origin checks.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}
