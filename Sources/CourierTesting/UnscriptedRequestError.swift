import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``ScriptedTransport`` was sent a request that nothing in its script answers.
///
/// Its description names the request and what was scripted, such as
/// `ScriptedTransport has no reply for GET https://api.example.com/users/2 (scripted: GET /users/1 (0 left))`.
/// When a scripted route looks like the request but is not it — a trailing `/`, letter case,
/// percent-encoding, another method — the description says how they differ (``nearMisses``):
/// `… (scripted: POST /o/token/ (1 left)); near miss: /o/token/ is not the request's path
/// /o/token: they differ in a trailing "/"`.
public struct UnscriptedRequestError: Error, Sendable, CustomStringConvertible {
    /// The request's method, such as `GET`.
    public let method: String
    /// The request's URL.
    public let url: URL?
    /// What was scripted when the request came, for the message.
    public let scriptedRoutes: String
    /// How scripted routes that look like the request differ from it, one sentence each:
    /// `/o/token/ is not the request's path /o/token: they differ in a trailing "/"`. Empty
    /// when no route comes close.
    public let nearMisses: [String]

    /// Creates the error for `request`.
    public init(request: URLRequest, scriptedRoutes: String, nearMisses: [String] = []) {
        self.method = request.httpMethod ?? "GET"
        self.url = request.url
        self.scriptedRoutes = scriptedRoutes
        self.nearMisses = nearMisses
    }

    /// Names the request (secrets in its URL redacted), what was scripted, and how routes that
    /// look like the request differ from it.
    public var description: String {
        let text =
            "ScriptedTransport has no reply for \(method) \(url.map { Redaction.default.redact(url: $0) } ?? "(no URL)") (scripted: \(scriptedRoutes))"
        return nearMisses.reduce(text) { $0 + "; near miss: " + $1 }
    }
}
