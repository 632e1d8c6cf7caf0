import Foundation

extension OAuthClient {
    /// The refresh_token grant (RFC 6749 §6) at the discovered token endpoint, with the client's
    /// authentication and the resource indicators: the refresh a session made with
    /// ``AuthSession/init(client:store:resources:now:refreshWindow:refreshTimeout:abandonRefreshAfter:dpop:)``
    /// runs.
    ///
    /// A rotated refresh token comes back in the new token; an answer without one keeps the old
    /// (the session does that).
    ///
    /// - Throws: ``AuthenticationError/sessionExpired`` when `token` has no refresh token;
    ///   ``CourierError/statusCode(_:)`` for the server's refusal (400 `invalid_grant` ends a
    ///   session); ``OAuthError`` when the server has no usable token endpoint; other errors
    ///   for the network, which a session treats as transient.
    public func refresh(_ token: OAuthToken, resources: [URL] = []) async throws -> OAuthToken {
        guard let refreshToken = token.refreshToken, !refreshToken.isEmpty else {
            throw AuthenticationError.sessionExpired
        }
        var fields = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        fields += resources.map { ("resource", $0.absoluteString) }
        return try await tokenResponse(fields: fields)
    }
}

extension AuthSession {
    /// A session whose refresh is `client`'s: the refresh_token grant at its token endpoint,
    /// with its client authentication and `resources` (RFC 8707). No refresh closure to write,
    /// and every guarantee of a session holds: one refresh per expiry across the processes and
    /// machines that share `store`, rotated refresh tokens stored before use, and the one
    /// logout rule (`invalid_grant` ends the session; a network failure does not).
    ///
    /// ```swift
    /// let client = OAuthClient(metadata: server, clientID: "my-cli")
    /// let session = AuthSession(client: client, store: FileTokenStore(url: tokenFile))
    /// try await session.signIn(try await client.authorizeWithLoopback(scopes: ["read"]) { print($0) })
    /// let api = RefreshableProvider<MyAPI>(auth: session)
    /// ```
    ///
    /// The other parameters are ``init(store:refresh:acquire:now:refreshWindow:refreshTimeout:abandonRefreshAfter:sessionEndingRule:dpop:)``'s.
    public init(
        client: OAuthClient,
        store: any TokenStore = InMemoryTokenStore(),
        resources: [URL] = [],
        now: @escaping @Sendable () -> Date = { Date() },
        refreshWindow: RefreshWindow? = RefreshWindow(),
        refreshTimeout: TimeInterval = 30,
        abandonRefreshAfter: TimeInterval? = nil,
        dpop: (any DPoPKeyFactory)? = nil
    ) {
        self.init(
            store: store, refresh: { token in try await client.refresh(token, resources: resources) }, now: now,
            refreshWindow: refreshWindow, refreshTimeout: refreshTimeout, abandonRefreshAfter: abandonRefreshAfter,
            sessionEndingRule: .oauth, dpop: dpop)
    }
}
