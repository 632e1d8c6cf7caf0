import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Finds authorization servers and protected resources, checks what they say, and remembers it.
///
/// From an issuer (RFC 8414, then OpenID Connect Discovery):
///
/// ```swift
/// let discovery = OAuthDiscovery()
/// let server = try await discovery.authorizationServer(issuer: URL(string: "https://auth.example.com")!)
/// ```
///
/// From a resource that answered 401 with `WWW-Authenticate: Bearer resource_metadata="…"`
/// (RFC 9728), as an MCP client does:
///
/// ```swift
/// let (resource, server) = try await discovery.authorizationServer(forResourceChallengedBy: response)
/// ```
///
/// Every document is checked before it is used: an authorization server's `issuer` must be the
/// one it was fetched for, a resource's `resource` must be the one asked about, and every URL
/// must be `https` (plain `http` only on loopback). Documents are cached for ``cacheLifetime``;
/// concurrent callers asking for the same document share one request.
public actor OAuthDiscovery {
    /// How long a document is kept before it is fetched again.
    public let cacheLifetime: TimeInterval
    /// The largest metadata document read, in bytes.
    public static let maximumDocumentSize = 256 * 1024

    private let provider: Provider<OAuthHTTPTarget>
    private let now: @Sendable () -> Date
    private var servers: [URL: Entry<AuthorizationServerMetadata>] = [:]
    private var resources: [URL: Entry<ProtectedResourceMetadata>] = [:]

    /// A cached document, or the one request fetching it.
    private enum Entry<Document: Sendable> {
        case fetching(Task<Result<Document, OAuthDiscoveryError>, Never>)
        case fetched(Document, at: Date)
    }

    /// A discovery that fetches through `transport`.
    ///
    /// - Parameters:
    ///   - transport: how documents are fetched (default: a `URLSessionTransport`).
    ///   - cacheLifetime: seconds a document is kept (default: one hour).
    ///   - now: the clock the cache reads; tests drive it.
    public init(
        transport: any HTTPTransport = URLSessionTransport(), cacheLifetime: TimeInterval = 3600,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.provider = Provider(transport: transport)
        self.cacheLifetime = cacheLifetime.isFinite ? max(0, cacheLifetime) : 0
        self.now = now
    }

    /// Forgets every cached document.
    public func removeCachedDocuments() {
        servers = [:]
        resources = [:]
    }

    // MARK: Authorization servers

    /// The metadata of the authorization server `issuer`: RFC 8414's
    /// `/.well-known/oauth-authorization-server` first, then OpenID Connect's
    /// `/.well-known/openid-configuration` (both forms) when the first is not found.
    ///
    /// - Throws: ``OAuthDiscoveryError``: ``OAuthDiscoveryError/insecureURL(_:what:)``,
    ///   ``OAuthDiscoveryError/invalidIssuer(_:reason:)``,
    ///   ``OAuthDiscoveryError/issuerMismatch(expected:found:metadataURL:)`` (the document names
    ///   another issuer), ``OAuthDiscoveryError/metadataNotFound(tried:statusCode:)``,
    ///   ``OAuthDiscoveryError/unreadableMetadata(_:reason:)``,
    ///   ``OAuthDiscoveryError/requestFailed(_:_:)``.
    public func authorizationServer(issuer: URL) async throws(OAuthDiscoveryError) -> AuthorizationServerMetadata {
        try Self.checkIssuer(issuer)
        let candidates = Self.metadataURLs(issuer: issuer)
        return try await cached(issuer, in: { $0.servers[$1] }, store: { $0.servers[$1] = $2 }) {
            provider, _ throws(OAuthDiscoveryError) in
            var statusCode = 404
            for url in candidates {
                let response = try await Self.fetch(url, with: provider)
                guard response.statusCode == 200 else {
                    // Not found here; the next form may be the one this server publishes.
                    if (400..<500).contains(response.statusCode) {
                        statusCode = response.statusCode
                        continue
                    }
                    throw .metadataNotFound(tried: [url], statusCode: response.statusCode)
                }
                let metadata: AuthorizationServerMetadata = try Self.decode(response, from: url)
                guard metadata.issuer.absoluteString == issuer.absoluteString else {
                    throw .issuerMismatch(expected: issuer, found: metadata.issuer, metadataURL: url)
                }
                for (field, endpoint) in metadata.endpoints where !OAuthURLPolicy.isAllowed(endpoint) {
                    throw .insecureURL(endpoint, what: field)
                }
                return metadata
            }
            throw .metadataNotFound(tried: candidates, statusCode: statusCode)
        }
    }

    /// The URLs tried for `issuer`'s metadata, in order.
    static func metadataURLs(issuer: URL) -> [URL] {
        var urls: [URL] = []
        for url in [
            OAuthURLPolicy.wellKnown("oauth-authorization-server", insertedInto: issuer),
            OAuthURLPolicy.wellKnown("openid-configuration", appendedTo: issuer),
            OAuthURLPolicy.wellKnown("openid-configuration", insertedInto: issuer),
        ] {
            if let url, !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    private static func checkIssuer(_ issuer: URL) throws(OAuthDiscoveryError) {
        guard OAuthURLPolicy.isAllowed(issuer) else { throw .insecureURL(issuer, what: "issuer") }
        guard let components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) else {
            throw .invalidIssuer(issuer, reason: "it is not a URL")
        }
        if components.query != nil { throw .invalidIssuer(issuer, reason: "an issuer has no query") }
        if components.fragment != nil { throw .invalidIssuer(issuer, reason: "an issuer has no fragment") }
        if components.user != nil || components.password != nil {
            throw .invalidIssuer(issuer, reason: "an issuer has no user information")
        }
    }

    // MARK: Protected resources

    /// The metadata of the protected resource `resource`, from its well-known URL
    /// (`/.well-known/oauth-protected-resource` inserted before its path, RFC 9728 §3.1).
    ///
    /// - Throws: ``OAuthDiscoveryError``; ``OAuthDiscoveryError/resourceMismatch(expected:found:metadataURL:)``
    ///   when the document describes another resource.
    public func protectedResource(_ resource: URL) async throws(OAuthDiscoveryError) -> ProtectedResourceMetadata {
        guard OAuthURLPolicy.isAllowed(resource) else { throw .insecureURL(resource, what: "resource") }
        guard let url = OAuthURLPolicy.wellKnown("oauth-protected-resource", insertedInto: resource) else {
            throw .insecureURL(resource, what: "resource")
        }
        return try await protectedResource(metadataURL: url, requestedURL: resource, exact: true)
    }

    /// The metadata a resource's `401` (or `403`) names in `WWW-Authenticate`'s
    /// `resource_metadata` (RFC 9728 §5.1).
    ///
    /// The document must be on the same origin as the request that was answered, and describe
    /// a resource that contains that request's URL (the same origin, and a path that is the
    /// request's or a parent of it).
    ///
    /// - Throws: ``OAuthDiscoveryError/noResourceMetadataChallenge(statusCode:url:)`` when the
    ///   response names no metadata, and the other ``OAuthDiscoveryError`` cases.
    public func protectedResource(
        challengedBy response: Response
    ) async throws(OAuthDiscoveryError) -> ProtectedResourceMetadata {
        let requestURL = response.request?.url ?? response.response?.url
        guard response.statusCode == 401 || response.statusCode == 403, let requestURL,
            let value = AuthenticationChallenge.parse(wwwAuthenticateOf: response.response)
                .lazy.compactMap({ $0["resource_metadata"] }).first
        else {
            throw .noResourceMetadataChallenge(statusCode: response.statusCode, url: requestURL)
        }
        guard let url = URL(string: value, relativeTo: requestURL)?.absoluteURL else {
            throw .unreadableMetadata(requestURL, reason: "resource_metadata is not a URL")
        }
        guard OAuthURLPolicy.isAllowed(url) else { throw .insecureURL(url, what: "resource_metadata") }
        return try await protectedResource(metadataURL: url, requestedURL: requestURL, exact: false)
    }

    /// The resource's metadata and its first authorization server's, from a resource's 401: what
    /// an MCP client needs to sign in, starting from nothing but the resource's URL.
    ///
    /// - Throws: ``OAuthDiscoveryError``;
    ///   ``OAuthDiscoveryError/noAuthorizationServer(resource:)`` when the resource lists none.
    public func authorizationServer(
        forResourceChallengedBy response: Response
    ) async throws(OAuthDiscoveryError) -> (resource: ProtectedResourceMetadata, server: AuthorizationServerMetadata) {
        let resource = try await protectedResource(challengedBy: response)
        guard let issuer = resource.authorizationServers.first else {
            throw .noAuthorizationServer(resource: resource.resource)
        }
        return (resource, try await authorizationServer(issuer: issuer))
    }

    private func protectedResource(
        metadataURL: URL, requestedURL: URL, exact: Bool
    ) async throws(OAuthDiscoveryError) -> ProtectedResourceMetadata {
        let metadata = try await cached(metadataURL, in: { $0.resources[$1] }, store: { $0.resources[$1] = $2 }) {
            provider, _ throws(OAuthDiscoveryError) in
            let response = try await Self.fetch(metadataURL, with: provider)
            guard response.statusCode == 200 else {
                throw .metadataNotFound(tried: [metadataURL], statusCode: response.statusCode)
            }
            let metadata: ProtectedResourceMetadata = try Self.decode(response, from: metadataURL)
            guard OAuthURLPolicy.isAllowed(metadata.resource) else {
                throw .insecureURL(metadata.resource, what: "resource")
            }
            for server in metadata.authorizationServers where !OAuthURLPolicy.isAllowed(server) {
                throw .insecureURL(server, what: "authorization_servers entry")
            }
            return metadata
        }
        guard Self.resource(metadata.resource, covers: requestedURL, exact: exact) else {
            throw .resourceMismatch(expected: requestedURL, found: metadata.resource, metadataURL: metadataURL)
        }
        return metadata
    }

    /// Whether `resource` identifies `url`: the same URL (`exact`), or the same origin and a path
    /// that is `url`'s or one of its parents.
    static func resource(_ resource: URL, covers url: URL, exact: Bool) -> Bool {
        func trimmed(_ url: URL) -> String {
            var text = url.absoluteString
            if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<end]) }
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
        if exact { return trimmed(resource) == trimmed(url) }
        guard let origin = OAuthURLPolicy.origin(of: resource), origin == OAuthURLPolicy.origin(of: url) else {
            return false
        }
        let resourcePath = URLComponents(url: resource, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        let parent = resourcePath.hasSuffix("/") ? String(resourcePath.dropLast()) : resourcePath
        return parent.isEmpty || path == parent || path.hasPrefix(parent + "/")
    }

    // MARK: Fetching and caching

    /// The cached document for `key`, or the one fetch of it (shared by concurrent callers;
    /// a failure is not cached).
    private func cached<Document: Sendable>(
        _ key: URL, in read: (isolated OAuthDiscovery, URL) -> Entry<Document>?,
        store: (isolated OAuthDiscovery, URL, Entry<Document>?) -> Void,
        fetch: @escaping @Sendable (Provider<OAuthHTTPTarget>, URL) async throws(OAuthDiscoveryError) -> Document
    ) async throws(OAuthDiscoveryError) -> Document {
        switch read(self, key) {
        case .fetched(let document, let at) where now().timeIntervalSince(at) < cacheLifetime:
            return document
        case .fetching(let task):
            return try await task.value.get()
        default:
            break
        }
        let provider = self.provider
        let task = Task<Result<Document, OAuthDiscoveryError>, Never> {
            do throws(OAuthDiscoveryError) {
                return .success(try await fetch(provider, key))
            } catch {
                return .failure(error)
            }
        }
        store(self, key, .fetching(task))
        let result = await task.value
        switch result {
        case .success(let document): store(self, key, .fetched(document, at: now()))
        case .failure: store(self, key, nil)
        }
        return try result.get()
    }

    private static func fetch(_ url: URL, with provider: Provider<OAuthHTTPTarget>) async throws(OAuthDiscoveryError)
        -> Response
    {
        do {
            return try await provider.request(.get(url))
        } catch {
            throw .requestFailed(url, error)
        }
    }

    private static func decode<Document: Decodable>(
        _ response: Response, from url: URL
    ) throws(OAuthDiscoveryError) -> Document {
        guard response.data.count <= maximumDocumentSize else {
            throw .unreadableMetadata(
                url, reason: "the document is \(response.data.count) bytes, more than \(maximumDocumentSize)")
        }
        do {
            return try JSONDecoder().decode(Document.self, from: response.data)
        } catch let error as DecodingError {
            throw .unreadableMetadata(url, reason: DecodingFailure.describe(error))
        } catch {
            throw .unreadableMetadata(url, reason: "it is not JSON")
        }
    }
}
