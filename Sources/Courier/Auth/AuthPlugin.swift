import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Signs requests with an ``AuthSession``'s token, refreshing it first when it is about to
/// expire, so a request never leaves with a token that dies in flight.
///
/// ``RefreshableProvider`` installs one for its session; add it yourself to a plain
/// ``Provider`` for proactive refresh without replay.
///
/// A request is signed only when
/// - its target's ``AccessTokenAuthorizable/authorizationType`` is not `nil` (a target that
///   does not conform counts as ``AuthorizationType/bearer``), and
/// - its host is allowed: one of `allowedHosts`, or by default the target's own `baseURL`
///   host — so a token never goes to a third-party host by accident.
///
/// The header is set, never appended: a replayed request carries exactly one
/// `Authorization`.
public struct AuthPlugin: PluginType {
    /// The session whose token signs requests.
    public let auth: AuthSession
    /// Refresh first when the token expires within this many seconds (capped at half the
    /// token's lifetime).
    public let refreshLeeway: TimeInterval
    /// Hosts that may receive the token; `nil` means each target's `baseURL` host.
    public let allowedHosts: Set<String>?

    /// Creates the plugin.
    ///
    /// - Parameters:
    ///   - auth: the session whose token signs requests.
    ///   - refreshLeeway: refresh before sending when the token expires within this many
    ///     seconds (default 60).
    ///   - allowedHosts: hosts that may receive the token (case-insensitive); `nil` means
    ///     each target's `baseURL` host.
    public init(auth: AuthSession, refreshLeeway: TimeInterval = 60, allowedHosts: Set<String>? = nil) {
        self.auth = auth
        self.refreshLeeway = refreshLeeway
        self.allowedHosts = allowedHosts.map { Set($0.map { $0.lowercased() }) }
    }

    /// Sets `Authorization` with a token valid for at least the leeway.
    ///
    /// - Throws: ``CourierError/authentication(_:)`` when no token can be had (the request
    ///   is then not sent), ``CourierError/underlying(_:_:)`` with a
    ///   ``RequestValidationError`` when the token or its type holds CR, LF or NUL, or
    ///   ``CourierError/cancelled``.
    public nonisolated(nonsending) func prepare(_ request: URLRequest, target: any TargetType) async throws
        -> URLRequest
    {
        var signing = SigningState(authorization: target.resolvedAuthorizationType)
        return try await sign(request, target: target, signing: &signing)
    }

    /// Signs `request` for the call whose signing state is `signing`, and records there the
    /// token that signed it: what ``RefreshableProvider`` compares when the server rejects
    /// the request.
    ///
    /// A replay is signed with the token the refresh returned (``SigningState/replacement``),
    /// and the first attempt of a call whose renewal failed while it waited fails with that
    /// failure, instead of asking the session again.
    nonisolated(nonsending) func sign(_ request: URLRequest, target: any TargetType, signing: inout SigningState)
        async throws(CourierError) -> URLRequest
    {
        guard let authorizationType = signing.authorization, isAllowed(request, target: target) else {
            return request
        }
        let session = ObjectIdentifier(auth)
        if let failure = signing.renewalFailure, failure.session == session {
            signing.renewalFailure = nil
            throw CourierError(failure.error)
        }
        let token: OAuthToken
        if let replacement = signing.replacement, replacement.session == session {
            signing.replacement = nil
            token = replacement.token
        } else {
            do {
                token = try await auth.validToken(minimumValidity: refreshLeeway)
            } catch {
                throw CourierError(error)
            }
        }
        var request = request
        let scheme = authorizationType == .bearer ? token.tokenType : authorizationType.value
        let value = "\(scheme) \(token.accessToken)"
        // Foundation silently drops a value with CR or LF: the request would go out unsigned
        // (or, elsewhere, with an injected header). Refuse it, never showing the token.
        if let character = value.unicodeScalars.first(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            throw CourierError.underlying(
                RequestValidationError(
                    reason: .invalidHeaderValue(headerName: "Authorization", invalidCharacter: character),
                    url: request.url),
                nil)
        }
        request.setValue(value, forHTTPHeaderField: "Authorization")
        signing.credential = SigningState.Credential(session: session, token: token)
        return request
    }

    /// Whether `request` goes to a host allowed to receive the token.
    public func isAllowed(_ request: URLRequest, target: any TargetType) -> Bool {
        guard let host = request.url?.host?.lowercased() else { return false }
        if let allowedHosts { return allowedHosts.contains(host) }
        return target.baseURL.host?.lowercased() == host
    }
}
