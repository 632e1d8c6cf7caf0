import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A resource's answer that the token is valid but lacks scope (RFC 6750 §3.1:
/// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, on a 403 or a 401).
///
/// It is a signal to step up, never a refresh and never a logout: a refreshed token would have
/// the same scope. The app signs the person in again asking for ``scopes`` too.
///
/// ```swift
/// do {
///     _ = try await api.request(.publish(post))
/// } catch let error where error.insufficientScope != nil {
///     let needed = error.insufficientScope!.scopes
///     try await session.signIn(try await client.authorizeWithLoopback(scopes: granted + needed) { print($0) })
/// }
/// ```
public struct InsufficientScope: Error, Sendable, Equatable {
    /// The scopes the resource asks for (its challenge's `scope`), empty if it names none.
    public let scopes: [String]
    /// The status it came with: 403, or 401 from servers that use it.
    public let statusCode: Int
    /// The resource's metadata URL, when the challenge names one (RFC 9728).
    public let resourceMetadata: URL?

    /// The step-up signal in `response`, or `nil` when it is not a 401/403 whose Bearer or
    /// DPoP challenge says `insufficient_scope`.
    public init?(response: Response) {
        guard response.statusCode == 401 || response.statusCode == 403 else { return nil }
        let challenges = AuthenticationChallenge.parse(wwwAuthenticateOf: response.response)
        guard
            let challenge = challenges.first(where: {
                ($0.hasScheme("Bearer") || $0.hasScheme("DPoP")) && $0["error"] == "insufficient_scope"
            })
        else { return nil }
        scopes = (challenge["scope"] ?? "").split(separator: " ").map(String.init)
        statusCode = response.statusCode
        resourceMetadata = challenge["resource_metadata"].flatMap(URL.init(string:))
    }
}

extension InsufficientScope: CustomStringConvertible {
    /// Which scopes the resource asks for.
    public var description: String {
        let asked = scopes.isEmpty ? "names no scope" : "asks for \(scopes.joined(separator: " "))"
        return
            "The resource answered \(statusCode) insufficient_scope: the token lacks scope; it \(asked) (sign in again with it)"
    }
}

extension CourierError {
    /// The step-up signal of this error's response (a 401/403 `insufficient_scope`), if any.
    public var insufficientScope: InsufficientScope? { response.flatMap(InsufficientScope.init(response:)) }
}

extension Response {
    /// The step-up signal of this response (a 401/403 `insufficient_scope`), if any.
    public var insufficientScope: InsufficientScope? { InsufficientScope(response: self) }
}
