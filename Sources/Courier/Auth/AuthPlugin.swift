import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Signs requests with an ``AuthSession``'s token, refreshing it first when it is about to
/// expire, so a request never leaves with a token that dies in flight.
///
/// ``RefreshableProvider`` lists one for its session first among its plugins, and its
/// re-authentication stage (``ReauthenticationInterceptor``) signs with that plugin's settings
/// before any other plugin's `prepare` runs; add one yourself to a plain ``Provider`` for
/// proactive refresh without replay (it then signs in its `prepare`, in its place among the
/// plugins).
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
        guard let authorizationType = target.resolvedAuthorizationType, isAllowed(request, target: target) else {
            return request
        }
        let token: OAuthToken
        do {
            token = try await auth.validToken(minimumValidity: refreshLeeway)
        } catch {
            throw CourierError(error)
        }
        return try await sign(request, with: token, as: authorizationType).request
    }

    /// Keeps the DPoP nonce a server sent (a DPoP session on a plain ``Provider``), so the
    /// next proof to that origin carries it. Does nothing for a bearer session.
    public func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
        auth.dpop?.remember(result)
    }

    /// `request` signed with `token`: `Authorization` (``signed(_:with:as:)``), and on a DPoP
    /// session, for a DPoP-bound token, `Authorization: DPoP <token>` and a fresh proof in
    /// `DPoP`. Also the token that signed it: when the token's DPoP key is lost the session
    /// ends (``SessionExpiry/Cause/dpopKeyLost``), or signs with the token another process
    /// stored meanwhile.
    ///
    /// - Throws: what ``signed(_:with:as:)`` throws; ``CourierError/authentication(_:)`` with
    ///   ``AuthenticationError/sessionExpired`` when the key is lost; ``CourierError/underlying(_:_:)``
    ///   with a ``DPoPError`` when no proof can be made (``DPoPError/keyFactoryMissing`` for a
    ///   DPoP-bound token on a session made without `dpop:`).
    nonisolated(nonsending) func sign(
        _ request: URLRequest, with token: OAuthToken, as authorizationType: AuthorizationType, nonce: String? = nil
    ) async throws(CourierError) -> (request: URLRequest, token: OAuthToken) {
        guard authorizationType == .bearer, DPoPSigner.isBound(token) else {
            return (try signed(request, with: token, as: authorizationType), token)
        }
        guard let dpop = auth.dpop else {
            // A bearer session holding a DPoP-bound token (another process stored it): without
            // a proof every server refuses it, so nothing is sent.
            throw .underlying(DPoPError.keyFactoryMissing, nil)
        }
        var token = token
        for _ in 0..<2 {
            let builder: DPoPProofBuilder
            do {
                builder = try dpop.builder(for: token)
            } catch {
                do {
                    token = try await auth.endSession(lostKeyOf: token)
                } catch {
                    throw CourierError(error)
                }
                if !DPoPSigner.isBound(token) {
                    return (try signed(request, with: token, as: authorizationType), token)
                }
                continue
            }
            try Self.checkAuthorization("DPoP \(token.accessToken)", url: request.url)
            return (
                try await dpop.signed(request, accessToken: token.accessToken, builder: builder, nonce: nonce), token
            )
        }
        throw .authentication(.sessionExpired)
    }

    /// `request` with `Authorization: <scheme> <token>` set (replaced, never appended): the
    /// one place a header is made from a token, for this plugin's `prepare` and for the
    /// re-authentication stage (``ReauthenticationInterceptor``), which signs with this
    /// plugin's settings.
    ///
    /// - Throws: ``CourierError/underlying(_:_:)`` with a ``RequestValidationError`` when the
    ///   token or its type holds CR, LF or NUL (never showing the token).
    func signed(_ request: URLRequest, with token: OAuthToken, as authorizationType: AuthorizationType)
        throws(CourierError) -> URLRequest
    {
        var request = request
        let scheme = authorizationType == .bearer ? token.tokenType : authorizationType.value
        let value = "\(scheme) \(token.accessToken)"
        try Self.checkAuthorization(value, url: request.url)
        request.setValue(value, forHTTPHeaderField: "Authorization")
        return request
    }

    /// Foundation silently drops a header value with CR or LF: the request would go out
    /// unsigned (or, elsewhere, with an injected header). Refuses it, never showing the token.
    static func checkAuthorization(_ value: String, url: URL?) throws(CourierError) {
        if let character = value.unicodeScalars.first(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            throw CourierError.underlying(
                RequestValidationError(
                    reason: .invalidHeaderValue(headerName: "Authorization", invalidCharacter: character),
                    url: url),
                nil)
        }
    }

    /// Whether `request` goes to a host allowed to receive the token.
    public func isAllowed(_ request: URLRequest, target: any TargetType) -> Bool {
        guard let host = request.url?.host?.lowercased() else { return false }
        if let allowedHosts { return allowedHosts.contains(host) }
        return target.baseURL.host?.lowercased() == host
    }
}
