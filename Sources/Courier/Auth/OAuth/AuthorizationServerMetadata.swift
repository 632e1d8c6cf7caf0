import Foundation

/// What an authorization server says about itself (RFC 8414 §2, and the same fields of OpenID
/// Connect Discovery): where its endpoints are and what it supports.
///
/// Get it with ``OAuthDiscovery/authorizationServer(issuer:)``, which checks that its
/// ``issuer`` is the one asked for and that every endpoint is `https` (or loopback), or write
/// it yourself for a server that publishes no metadata:
///
/// ```swift
/// let server = AuthorizationServerMetadata(
///     issuer: URL(string: "https://auth.example.com")!,
///     authorizationEndpoint: URL(string: "https://auth.example.com/authorize")!,
///     tokenEndpoint: URL(string: "https://auth.example.com/token")!)
/// ```
public struct AuthorizationServerMetadata: Codable, Sendable, Equatable {
    /// The issuer identifier: an `https` URL with no query or fragment.
    public let issuer: URL
    /// Where a person is sent to sign in (`authorization_endpoint`).
    public let authorizationEndpoint: URL?
    /// Where tokens are requested (`token_endpoint`).
    public let tokenEndpoint: URL?
    /// Where a client registers itself (`registration_endpoint`, RFC 7591).
    public let registrationEndpoint: URL?
    /// Where an authorization request is pushed first (`pushed_authorization_request_endpoint`,
    /// RFC 9126).
    public let pushedAuthorizationRequestEndpoint: URL?
    /// Whether every authorization request must be pushed (`require_pushed_authorization_requests`).
    public let requirePushedAuthorizationRequests: Bool
    /// The server's signing keys (`jwks_uri`).
    public let jwksURI: URL?
    /// Where tokens are revoked (`revocation_endpoint`, RFC 7009).
    public let revocationEndpoint: URL?
    /// The scopes the server knows (`scopes_supported`), if it says.
    public let scopesSupported: [String]?
    /// The `response_type`s it accepts (`response_types_supported`).
    public let responseTypesSupported: [String]?
    /// The grants it accepts (`grant_types_supported`); RFC 8414 says `authorization_code` and
    /// `implicit` when absent.
    public let grantTypesSupported: [String]?
    /// The client authentication methods of its token endpoint
    /// (`token_endpoint_auth_methods_supported`); `client_secret_basic` when absent.
    public let tokenEndpointAuthMethodsSupported: [String]?
    /// The algorithms it accepts for `private_key_jwt` assertions
    /// (`token_endpoint_auth_signing_alg_values_supported`).
    public let tokenEndpointAuthSigningAlgValuesSupported: [String]?
    /// The PKCE methods it supports (`code_challenge_methods_supported`). Courier sends `S256`
    /// only.
    public let codeChallengeMethodsSupported: [String]?
    /// Whether its authorization responses carry `iss` (RFC 9207
    /// `authorization_response_iss_parameter_supported`). When they do, Courier refuses a
    /// response without it.
    public let authorizationResponseIssParameterSupported: Bool
    /// The DPoP proof algorithms it accepts (`dpop_signing_alg_values_supported`, RFC 9449).
    public let dpopSigningAlgValuesSupported: [String]?

    /// Metadata written by hand, for a server that publishes none.
    public init(
        issuer: URL,
        authorizationEndpoint: URL? = nil,
        tokenEndpoint: URL? = nil,
        registrationEndpoint: URL? = nil,
        pushedAuthorizationRequestEndpoint: URL? = nil,
        requirePushedAuthorizationRequests: Bool = false,
        jwksURI: URL? = nil,
        revocationEndpoint: URL? = nil,
        scopesSupported: [String]? = nil,
        responseTypesSupported: [String]? = ["code"],
        grantTypesSupported: [String]? = nil,
        tokenEndpointAuthMethodsSupported: [String]? = nil,
        tokenEndpointAuthSigningAlgValuesSupported: [String]? = nil,
        codeChallengeMethodsSupported: [String]? = ["S256"],
        authorizationResponseIssParameterSupported: Bool = false,
        dpopSigningAlgValuesSupported: [String]? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.registrationEndpoint = registrationEndpoint
        self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
        self.jwksURI = jwksURI
        self.revocationEndpoint = revocationEndpoint
        self.scopesSupported = scopesSupported
        self.responseTypesSupported = responseTypesSupported
        self.grantTypesSupported = grantTypesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.tokenEndpointAuthSigningAlgValuesSupported = tokenEndpointAuthSigningAlgValuesSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.dpopSigningAlgValuesSupported = dpopSigningAlgValuesSupported
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case registrationEndpoint = "registration_endpoint"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint"
        case scopesSupported = "scopes_supported"
        case responseTypesSupported = "response_types_supported"
        case grantTypesSupported = "grant_types_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case tokenEndpointAuthSigningAlgValuesSupported = "token_endpoint_auth_signing_alg_values_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
    }

    /// Reads a metadata document; unknown fields are ignored, absent booleans are `false`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try container.decode(URL.self, forKey: .issuer)
        authorizationEndpoint = try container.decodeIfPresent(URL.self, forKey: .authorizationEndpoint)
        tokenEndpoint = try container.decodeIfPresent(URL.self, forKey: .tokenEndpoint)
        registrationEndpoint = try container.decodeIfPresent(URL.self, forKey: .registrationEndpoint)
        pushedAuthorizationRequestEndpoint = try container.decodeIfPresent(
            URL.self, forKey: .pushedAuthorizationRequestEndpoint)
        requirePushedAuthorizationRequests =
            try container.decodeIfPresent(Bool.self, forKey: .requirePushedAuthorizationRequests) ?? false
        jwksURI = try container.decodeIfPresent(URL.self, forKey: .jwksURI)
        revocationEndpoint = try container.decodeIfPresent(URL.self, forKey: .revocationEndpoint)
        scopesSupported = try container.decodeIfPresent([String].self, forKey: .scopesSupported)
        responseTypesSupported = try container.decodeIfPresent([String].self, forKey: .responseTypesSupported)
        grantTypesSupported = try container.decodeIfPresent([String].self, forKey: .grantTypesSupported)
        tokenEndpointAuthMethodsSupported = try container.decodeIfPresent(
            [String].self, forKey: .tokenEndpointAuthMethodsSupported)
        tokenEndpointAuthSigningAlgValuesSupported = try container.decodeIfPresent(
            [String].self, forKey: .tokenEndpointAuthSigningAlgValuesSupported)
        codeChallengeMethodsSupported = try container.decodeIfPresent(
            [String].self, forKey: .codeChallengeMethodsSupported)
        authorizationResponseIssParameterSupported =
            try container.decodeIfPresent(Bool.self, forKey: .authorizationResponseIssParameterSupported) ?? false
        dpopSigningAlgValuesSupported = try container.decodeIfPresent(
            [String].self, forKey: .dpopSigningAlgValuesSupported)
    }

    /// The endpoints it names, by their metadata field, for the `https` check.
    var endpoints: [(field: String, url: URL)] {
        let named: [(String, URL?)] = [
            ("authorization_endpoint", authorizationEndpoint), ("token_endpoint", tokenEndpoint),
            ("registration_endpoint", registrationEndpoint),
            ("pushed_authorization_request_endpoint", pushedAuthorizationRequestEndpoint),
            ("jwks_uri", jwksURI), ("revocation_endpoint", revocationEndpoint),
        ]
        return named.compactMap { field, url in url.map { (field, $0) } }
    }
}
