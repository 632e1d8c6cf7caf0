import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``ScriptedTransport`` was sent a request that nothing in its script answers.
///
/// Its description names the request and what was scripted, such as
/// `ScriptedTransport has no reply for GET https://api.example.com/users/2 (scripted: GET /users/1 (0 left))`.
public struct UnscriptedRequestError: Error, Sendable, CustomStringConvertible {
    /// The request's method, such as `GET`.
    public let method: String
    /// The request's URL.
    public let url: URL?
    /// What was scripted when the request came, for the message.
    public let scriptedRoutes: String

    /// Creates the error for `request`.
    public init(request: URLRequest, scriptedRoutes: String) {
        self.method = request.httpMethod ?? "GET"
        self.url = request.url
        self.scriptedRoutes = scriptedRoutes
    }

    /// Names the request (secrets in its URL redacted) and what was scripted.
    public var description: String {
        "ScriptedTransport has no reply for \(method) \(url.map { Redaction.default.redact(url: $0) } ?? "(no URL)") (scripted: \(scriptedRoutes))"
    }
}
