import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ScriptedTransport.Route {
    /// A route's path, compared with a request's path segment by segment.
    ///
    /// Both sides are split at `/` and each segment is percent-decoded on its own, so
    /// `/files/a%20b` and `/files/a b` are the same path, while `/a%2Fb` (one segment) is not
    /// `/a/b` (two). A trailing `/` is a segment of its own (an empty one): `/o/token/` and
    /// `/o/token` are different paths, as they are to Django or Rails. Letters keep their case.
    struct PathPattern: Sendable {
        /// The path as the route was written, with a leading `/`.
        let text: String
        /// Its segments, percent-decoded, without the leading `/`.
        let segments: [String]

        init(_ path: String) {
            self.text = path
            self.segments = Self.segments(of: path)
        }

        /// Whether `request`'s path is this path or ends with it at a segment boundary.
        func matches(_ request: URLRequest) -> Bool {
            let requestSegments = Self.segments(of: Self.path(of: request))
            if text == "/" { return requestSegments == [""] }
            return requestSegments.count >= segments.count && requestSegments.suffix(segments.count) == segments[...]
        }

        /// Why `request`'s path, which this path does not match, looks like it — a trailing
        /// `/`, the case of letters, percent-encoding — or `nil` when it does not.
        func difference(from request: URLRequest) -> String? {
            let requestPath = Self.path(of: request)
            // Alike: the same segments once decoded as a whole, in lower case, without empty ones.
            let alike = { (path: String) in Self.wholeDecoded(path).lowercased().split(separator: "/").map(String.init)
            }
            guard !alike(text).isEmpty, Self.isSuffix(alike(text), of: alike(requestPath)) else { return nil }
            var differences: [String] = []
            if Self.endsWithSlash(text) != Self.endsWithSlash(requestPath) { differences.append("a trailing \"/\"") }
            let cased = { (path: String) in Self.wholeDecoded(path).split(separator: "/").map(String.init) }
            if !Self.isSuffix(cased(text), of: cased(requestPath)) { differences.append("the case of letters") }
            let bySegment = { (path: String) in Self.segments(of: path).filter { !$0.isEmpty }.map { $0.lowercased() } }
            if !Self.isSuffix(bySegment(text), of: bySegment(requestPath)) {
                differences.append("percent-encoding (an encoded \"/\" belongs to its segment)")
            }
            guard !differences.isEmpty else { return nil }
            return "\(text) is not the request's path \(requestPath): they differ in "
                + differences.joined(separator: " and ")
        }

        /// The request's path as sent, percent-encoded and with its trailing `/` (which
        /// `URL.path` drops); `/` for a URL without a path.
        static func path(of request: URLRequest) -> String {
            guard let url = request.url else { return "/" }
            let path =
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
            return path.isEmpty ? "/" : path
        }

        /// The segments after the leading `/`, each percent-decoded; a trailing `/` gives an
        /// empty last segment.
        static func segments(of path: String) -> [String] {
            let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
            return trimmed.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                String(segment).removingPercentEncoding ?? String(segment)
            }
        }

        /// The path with every escape decoded, an encoded `/` included.
        private static func wholeDecoded(_ path: String) -> String {
            path.removingPercentEncoding ?? path
        }

        private static func isSuffix(_ suffix: [String], of segments: [String]) -> Bool {
            segments.count >= suffix.count && segments.suffix(suffix.count) == suffix[...]
        }

        private static func endsWithSlash(_ path: String) -> Bool {
            path.count > 1 && path.hasSuffix("/")
        }
    }
}
