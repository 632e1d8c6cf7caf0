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
        let escapedPath = path.addingPercentEncoding(withAllowedCharacters: pathAllowed) ?? path
        let trimmedPath = escapedPath.drop { $0 == "/" }
        let base = baseURL.absoluteString
        // Fast path: nothing after the path in the base URL, so plain string joining is
        // exact and avoids URLComponents (measurably cheaper per request).
        if !base.contains("?") && !base.contains("#") {
            let joined =
                base.hasSuffix("/") ? base + trimmedPath : base + "/" + trimmedPath
            return URL(string: joined) ?? baseURL
        }
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            return baseURL
        }
        var basePath = components.percentEncodedPath
        if basePath.hasSuffix("/") { basePath.removeLast() }
        components.percentEncodedPath = basePath + "/" + trimmedPath
        return components.url ?? baseURL
    }

    private static let pathAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ";")
        return allowed
    }()
}
