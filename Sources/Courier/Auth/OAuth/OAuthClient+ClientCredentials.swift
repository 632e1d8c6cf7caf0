import Foundation

extension OAuthClient {
    /// A token for the client itself, with no person involved (RFC 6749 §4.4): for services.
    /// The client authenticates as ``authentication`` says (`client_secret_basic` or
    /// `client_secret_post`).
    ///
    /// ```swift
    /// let client = OAuthClient(metadata: server, clientID: "billing", authentication: .clientSecretBasic(secret))
    /// let session = AuthSession(clientCredentialsOf: client, scopes: ["invoices"])
    /// ```
    ///
    /// - Throws: ``OAuthError/tokenRequestFailed(grant:_:)`` with the server's answer (401
    ///   `invalid_client` for a wrong secret), ``OAuthError/missingEndpoint(_:)``.
    public func clientCredentials(scopes: [String] = [], resources: [URL] = []) async throws(OAuthError) -> OAuthToken {
        var fields = [("grant_type", "client_credentials")]
        if !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        fields += resources.map { ("resource", $0.absoluteString) }
        return try await tokenRequest(grant: "client_credentials", fields: fields)
    }
}

extension AuthSession {
    /// A session for a service: its first token comes from the client credentials grant with
    /// no user action, and when it expires the session refreshes it with the refresh token if
    /// the server gave one, or asks for a new one with the same grant. Every guarantee of a
    /// session holds (one token request per expiry across everything sharing `store`).
    ///
    /// The other parameters are ``init(client:store:resources:now:refreshWindow:refreshTimeout:abandonRefreshAfter:dpop:)``'s.
    public init(
        clientCredentialsOf client: OAuthClient,
        scopes: [String] = [],
        store: any TokenStore = InMemoryTokenStore(),
        resources: [URL] = [],
        now: @escaping @Sendable () -> Date = { Date() },
        refreshWindow: RefreshWindow? = RefreshWindow(),
        refreshTimeout: TimeInterval = 30,
        abandonRefreshAfter: TimeInterval? = nil,
        dpop: (any DPoPKeyFactory)? = nil
    ) {
        self.init(
            store: store,
            refresh: { token in
                if token.refreshToken != nil { return try await client.refresh(token, resources: resources) }
                return try await client.clientCredentials(scopes: scopes, resources: resources)
            },
            acquire: { try await client.clientCredentials(scopes: scopes, resources: resources) }, now: now,
            refreshWindow: refreshWindow, refreshTimeout: refreshTimeout, abandonRefreshAfter: abandonRefreshAfter,
            sessionEndingRule: .oauth, dpop: dpop)
    }
}
