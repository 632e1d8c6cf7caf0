import Foundation

/// What a protected resource says about itself (RFC 9728 §2): which authorization servers issue
/// tokens for it and which scopes it knows.
///
/// An MCP client starts from nothing but the resource's URL: its first request is answered 401
/// with `WWW-Authenticate: Bearer resource_metadata="…"`, and
/// ``OAuthDiscovery/protectedResource(challengedBy:)`` follows that to this document.
public struct ProtectedResourceMetadata: Codable, Sendable, Equatable {
    /// The resource identifier (`resource`), which is also the resource indicator (RFC 8707)
    /// that a token request for it names.
    public let resource: URL
    /// The issuers of the authorization servers that issue tokens for it
    /// (`authorization_servers`).
    public let authorizationServers: [URL]
    /// The scopes it knows (`scopes_supported`), if it says.
    public let scopesSupported: [String]?
    /// How it takes a bearer token (`bearer_methods_supported`: `header`, `body`, `query`).
    public let bearerMethodsSupported: [String]?
    /// Its human-readable name (`resource_name`), if given.
    public let resourceName: String?

    /// Metadata written by hand.
    public init(
        resource: URL, authorizationServers: [URL], scopesSupported: [String]? = nil,
        bearerMethodsSupported: [String]? = nil, resourceName: String? = nil
    ) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.scopesSupported = scopesSupported
        self.bearerMethodsSupported = bearerMethodsSupported
        self.resourceName = resourceName
    }

    enum CodingKeys: String, CodingKey {
        case resource
        case authorizationServers = "authorization_servers"
        case scopesSupported = "scopes_supported"
        case bearerMethodsSupported = "bearer_methods_supported"
        case resourceName = "resource_name"
    }

    /// Reads a metadata document; unknown fields are ignored, an absent `authorization_servers`
    /// is empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resource = try container.decode(URL.self, forKey: .resource)
        authorizationServers = try container.decodeIfPresent([URL].self, forKey: .authorizationServers) ?? []
        scopesSupported = try container.decodeIfPresent([String].self, forKey: .scopesSupported)
        bearerMethodsSupported = try container.decodeIfPresent([String].self, forKey: .bearerMethodsSupported)
        resourceName = try container.decodeIfPresent(String.self, forKey: .resourceName)
    }
}
