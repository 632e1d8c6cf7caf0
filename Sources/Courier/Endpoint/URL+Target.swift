import Foundation

extension URL {
    /// The URL of `target`: its ``TargetType/path`` appended to its ``TargetType/baseURL``.
    ///
    /// Unlike `appendingPathComponent`, this keeps a query or fragment that the base URL
    /// carries, joins slashes without doubling them, keeps a trailing slash of the path, and
    /// percent-escapes characters that cannot stand in a path (a space, `?`, `#`).
    public init(target: any TargetType) {
        self = URL.joining(target.baseURL, path: target.path)
    }

    static func joining(_ baseURL: URL, path: String) -> URL {
        guard !path.isEmpty else { return baseURL }
        let base = baseURL.absoluteString
        // An app sends the same few targets again and again, and parsing the joined string is
        // most of the cost of an endpoint; the join depends on nothing but its two inputs.
        if let known = joinedURLs.lookUp(path, base: base) { return known }
        let joined = join(baseURL, base: base, path: path)
        joinedURLs.store(joined, path: path, base: base)
        return joined
    }

    private static func join(_ baseURL: URL, base: String, path: String) -> URL {
        // Fast path: nothing after the path in the base URL, so plain string joining is
        // exact and avoids URLComponents. Byte scans, not `String.contains(_:)` or
        // `hasSuffix(_:)`: with Foundation imported on Linux those go through NSString and
        // cost more than the URL parse itself.
        if !base.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            var escapedPath = escaped(path)
            let slashes = escapedPath.utf8.prefix { $0 == UInt8(ascii: "/") }.count
            if slashes > 0 { escapedPath.removeFirst(slashes) }
            let joined =
                base.utf8.last == UInt8(ascii: "/") ? base + escapedPath : base + "/" + escapedPath
            return URL(string: joined) ?? baseURL
        }
        let trimmedPath = escaped(path).drop { $0 == "/" }
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            return baseURL
        }
        var basePath = components.percentEncodedPath
        if basePath.hasSuffix("/") { basePath.removeLast() }
        components.percentEncodedPath = basePath + "/" + trimmedPath
        return components.url ?? baseURL
    }

    private static let joinedURLs = JoinedURLs()

    /// The most recent joins, at most `limit`: paths made up at run time (an id in the path)
    /// replace each other instead of growing the table without bound.
    private final class JoinedURLs: Sendable {
        // Keyed by the path alone, which hashes faster than a pair; the base URL is checked
        // on a hit (an app has one or two, so a path rarely meets another base).
        private let urls = Locked<[String: (base: String, url: URL)]>([:])
        private let limit = 128

        func lookUp(_ path: String, base: String) -> URL? {
            urls.withValue { urls in
                guard let entry = urls[path], entry.base == base else { return nil }
                return entry.url
            }
        }

        func store(_ url: URL, path: String, base: String) {
            urls.withValue { urls in
                if urls.count >= limit { urls.removeAll(keepingCapacity: true) }
                urls[path] = (base, url)
            }
        }
    }

    /// `path` with every character that cannot stand in a path percent-escaped.
    private static func escaped(_ path: String) -> String {
        // Most paths are plain ASCII that needs no escaping: check the bytes against the
        // very same set first and skip Foundation's escaping (about 1 µs on Linux).
        if path.utf8.allSatisfy({ $0 < 128 && pathAllowedASCII[Int($0)] }) { return path }
        return path.addingPercentEncoding(withAllowedCharacters: pathAllowed) ?? path
    }

    private static let pathAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ";")
        return allowed
    }()

    /// `pathAllowed` for the 128 ASCII code points, derived from it so the two always agree.
    private static let pathAllowedASCII: [Bool] = (0..<128).map { code in
        pathAllowed.contains(Unicode.Scalar(UInt8(code)))
    }
}
