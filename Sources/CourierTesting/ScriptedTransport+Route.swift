import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ScriptedTransport {
    /// Which requests a scripted reply is for.
    ///
    /// A path matches a request whose URL path is that path or ends with it at a segment
    /// boundary, so `.get("/users/1")` matches `https://api.example.com/v1/users/1`; a
    /// leading `/` is optional. Without a method, any method matches.
    ///
    /// Segments are compared as the server sees them: a trailing `/` counts
    /// (`.post("/o/token/")` matches `https://auth.example.com/o/token/`, not `…/o/token`),
    /// letters keep their case, and each segment is percent-decoded on its own (`/a%20b`
    /// matches `/a b`; `/a%2Fb` is one segment, not `/a/b`). When a request is not answered,
    /// ``UnscriptedRequestError`` points out a scripted path that differs from the request's
    /// only in one of these ways.
    ///
    /// ```swift
    /// transport.enqueue(.status(204), for: .delete("/users/1"))
    /// transport.always(.json("[]"), for: Route(path: "/repos"))
    /// transport.always(.status(503), for: .matching("any request to the CDN") { $0.url?.host == "cdn.example.com" })
    /// ```
    public struct Route: Sendable, CustomStringConvertible {
        /// How the route is shown in failure messages, such as `GET /users/1`.
        public let description: String
        private let predicate: @Sendable (URLRequest) -> Bool
        /// The method and path of a route made from them, to explain a near miss.
        private let pattern: (method: HTTPMethod?, path: PathPattern)?

        /// A route for requests with `method` (any method if `nil`) whose path is `path`.
        public init(method: HTTPMethod? = nil, path: String) {
            let pattern = PathPattern(path.hasPrefix("/") ? path : "/" + path)
            self.description = (method.map { "\($0.rawValue) " } ?? "") + pattern.text
            self.pattern = (method, pattern)
            self.predicate = { request in
                if let method, !Self.method(of: request, is: method) { return false }
                return pattern.matches(request)
            }
        }

        /// Why this route, which does not match `request`, looks as if it should: a path that
        /// differs only in a trailing `/`, letter case or percent-encoding, or the right path
        /// with another method. `nil` when there is nothing to point out.
        func nearMiss(for request: URLRequest) -> String? {
            guard let pattern, !matches(request) else { return nil }
            if pattern.path.matches(request), let method = pattern.method {
                return "\(description) has the request's path, but the request is a \(request.httpMethod ?? "GET")"
                    + " (not a \(method.rawValue))"
            }
            return pattern.path.difference(from: request)
        }

        private static func method(of request: URLRequest, is method: HTTPMethod) -> Bool {
            (request.httpMethod?.uppercased() ?? "GET") == method.rawValue.uppercased()
        }

        /// A route decided by `predicate`; `description` names it in failure messages.
        public static func matching(
            _ description: String, _ predicate: @escaping @Sendable (URLRequest) -> Bool
        ) -> Route {
            Route(description: description, predicate: predicate)
        }

        private init(description: String, predicate: @escaping @Sendable (URLRequest) -> Bool) {
            self.description = description
            self.predicate = predicate
            self.pattern = nil
        }

        /// Every request.
        public static let any = Route.matching("any request") { _ in true }

        /// `GET` requests to `path`.
        public static func get(_ path: String) -> Route { Route(method: .get, path: path) }
        /// `POST` requests to `path`.
        public static func post(_ path: String) -> Route { Route(method: .post, path: path) }
        /// `PUT` requests to `path`.
        public static func put(_ path: String) -> Route { Route(method: .put, path: path) }
        /// `PATCH` requests to `path`.
        public static func patch(_ path: String) -> Route { Route(method: .patch, path: path) }
        /// `DELETE` requests to `path`.
        public static func delete(_ path: String) -> Route { Route(method: .delete, path: path) }

        /// Whether `request` is for this route.
        public func matches(_ request: URLRequest) -> Bool {
            predicate(request)
        }
    }
}
