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
    /// ```swift
    /// transport.enqueue(.status(204), for: .delete("/users/1"))
    /// transport.always(.json("[]"), for: Route(path: "/repos"))
    /// transport.always(.status(503), for: .matching("any request to the CDN") { $0.url?.host == "cdn.example.com" })
    /// ```
    public struct Route: Sendable, CustomStringConvertible {
        /// How the route is shown in failure messages, such as `GET /users/1`.
        public let description: String
        private let predicate: @Sendable (URLRequest) -> Bool

        /// A route for requests with `method` (any method if `nil`) whose path is `path`.
        public init(method: HTTPMethod? = nil, path: String) {
            let path = path.hasPrefix("/") ? path : "/" + path
            self.description = (method.map { "\($0.rawValue) " } ?? "") + path
            self.predicate = { request in
                if let method, request.httpMethod?.uppercased() ?? "GET" != method.rawValue.uppercased() {
                    return false
                }
                guard let requestPath = request.url?.path else { return false }
                return requestPath == path || (path == "/" ? false : requestPath.hasSuffix(path))
            }
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
