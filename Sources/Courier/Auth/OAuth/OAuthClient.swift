import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client of one authorization server: builds authorization requests, checks their answers
/// and calls the token endpoint.
///
/// ```swift
/// let server = try await OAuthDiscovery().authorizationServer(issuer: issuer)
/// let client = OAuthClient(metadata: server, clientID: "my-cli")
/// let token = try await client.authorizeWithLoopback(scopes: ["read"]) { url in
///     print("Open this page to sign in: \(url)")
/// }
/// try await session.signIn(token)
/// ```
///
/// Every answer is checked: the callback must arrive at the exact `redirect_uri`, carry the
/// request's `state` and, where the server sends it, its `iss` (RFC 9207); the code is bound to
/// the request by PKCE (`S256`).
public struct OAuthClient: Sendable {
    /// The authorization server.
    public let metadata: AuthorizationServerMetadata
    /// The client's id at that server.
    public let clientID: String
    /// How the client authenticates at the token endpoint.
    public let authentication: OAuthClientAuthentication

    let provider: Provider<OAuthHTTPTarget>

    /// A client of the server `metadata` describes.
    ///
    /// - Parameters:
    ///   - metadata: the server, from ``OAuthDiscovery`` or written by hand.
    ///   - clientID: the client's id.
    ///   - authentication: how it authenticates (default: none, a public client with PKCE).
    ///   - transport: how requests are sent (default: a `URLSessionTransport`).
    public init(
        metadata: AuthorizationServerMetadata, clientID: String, authentication: OAuthClientAuthentication = .none,
        transport: any HTTPTransport = URLSessionTransport()
    ) {
        self.metadata = metadata
        self.clientID = clientID
        self.authentication = authentication
        self.provider = Provider(transport: transport)
    }

    // MARK: Authorization code

    /// A new authorization request: a fresh `state` and PKCE pair, the scopes and resource
    /// indicators (RFC 8707), and `redirectURI` exactly as given.
    ///
    /// - Throws: ``OAuthError/missingEndpoint(_:)`` when the server has no
    ///   `authorization_endpoint`, ``OAuthError/insecureEndpoint(_:)`` when it is plain http
    ///   off loopback.
    public func authorizationRequest(
        redirectURI: URL, scopes: [String] = [], resources: [URL] = [], additionalParameters: [String: String] = [:]
    ) async throws(OAuthError) -> AuthorizationRequest {
        let endpoint = try endpoint(metadata.authorizationEndpoint, "authorization_endpoint")
        let pkce = PKCE.generate()
        let state = OAuthRandom.token(byteCount: 24)
        var items = [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString),
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "code_challenge", value: pkce.challenge),
            URLQueryItem(name: "code_challenge_method", value: PKCE.method),
        ]
        if !scopes.isEmpty { items.append(URLQueryItem(name: "scope", value: scopes.joined(separator: " "))) }
        items += resources.map { URLQueryItem(name: "resource", value: $0.absoluteString) }
        items += additionalParameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        if let pushEndpoint = metadata.pushedAuthorizationRequestEndpoint {
            // RFC 9126: the parameters go to the server first, with the client's authentication,
            // and the browser carries only client_id and the request_uri it answered.
            let requestURI = try await push(items, to: pushEndpoint)
            items = [
                URLQueryItem(name: "client_id", value: clientID), URLQueryItem(name: "request_uri", value: requestURI),
            ]
        }
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw .missingEndpoint("authorization_endpoint")
        }
        components.percentEncodedQuery =
            ([components.percentEncodedQuery].compactMap { $0 }
            + items.map {
                FormBody.escape($0.name) + "=" + FormBody.escape($0.value ?? "")
            }).joined(separator: "&")
        guard let url = components.url else { throw .missingEndpoint("authorization_endpoint") }
        return AuthorizationRequest(
            url: url, state: state, redirectURI: redirectURI, resources: resources, scopes: scopes, pkce: pkce)
    }

    /// Pushes an authorization request (RFC 9126 §2) and returns its `request_uri`.
    private func push(_ items: [URLQueryItem], to pushEndpoint: URL) async throws(OAuthError) -> String {
        guard OAuthURLPolicy.isAllowed(pushEndpoint) else { throw .insecureEndpoint(pushEndpoint) }
        var fields = items.filter { $0.name != "client_id" }.map { ($0.name, $0.value ?? "") }
        var headers: [String: String] = [:]
        authentication.apply(clientID: clientID, to: &fields, headers: &headers)
        let response: Response
        do {
            response = try await provider.request(.form(pushEndpoint, fields, headers: headers))
                .filterSuccessfulStatusCodes()
        } catch {
            throw .tokenRequestFailed(grant: "pushed authorization request", error)
        }
        struct Pushed: Decodable {
            let requestURI: String
            enum CodingKeys: String, CodingKey { case requestURI = "request_uri" }
        }
        guard let pushed = try? JSONDecoder().decode(Pushed.self, from: response.data), !pushed.requestURI.isEmpty,
            pushed.requestURI.utf8.count <= 2048
        else {
            throw .tokenRequestFailed(grant: "pushed authorization request", .jsonMapping(response))
        }
        return pushed.requestURI
    }

    /// Checks the callback of `request` and exchanges its code for a token.
    ///
    /// This is the hand-off for `ASWebAuthenticationSession` on Apple platforms: the app runs
    /// the session with ``AuthorizationRequest/url`` and gives Courier the callback URL it
    /// returns. The loopback listener (``authorizeWithLoopback(scopes:resources:path:timeout:open:)``)
    /// calls it too.
    ///
    /// - Throws: ``OAuthError/redirectMismatch(expected:received:)``,
    ///   ``OAuthError/stateMismatch``, ``OAuthError/issuerMismatch(expected:found:)``,
    ///   ``OAuthError/missingIssuer(expected:)``, ``OAuthError/authorizationDenied(error:description:)``,
    ///   ``OAuthError/missingCode``, ``OAuthError/tokenRequestFailed(grant:_:)`` (a wrong
    ///   verifier or a used code is the server's `invalid_grant`). Nothing is sent to the token
    ///   endpoint unless every check passed.
    public func exchange(callback: URL, for request: AuthorizationRequest) async throws(OAuthError) -> OAuthToken {
        let code = try checkedCode(callback: callback, for: request)
        var fields = [
            ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", request.redirectURI.absoluteString), ("code_verifier", request.pkce.verifier),
        ]
        fields += request.resources.map { ("resource", $0.absoluteString) }
        return try await tokenRequest(grant: "authorization_code", fields: fields)
    }

    /// The code of a callback that passed every check.
    func checkedCode(callback: URL, for request: AuthorizationRequest) throws(OAuthError) -> String {
        guard Self.sameEndpoint(callback, request.redirectURI) else {
            throw .redirectMismatch(expected: request.redirectURI, received: callback)
        }
        var parameters: [String: String] = [:]
        for item in URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems ?? []
        where parameters[item.name] == nil {
            parameters[item.name] = item.value ?? ""
        }
        guard let state = parameters["state"], Self.constantTimeEqual(state, request.state) else {
            throw .stateMismatch
        }
        if let issuer = parameters["iss"] {
            guard issuer == metadata.issuer.absoluteString else {
                throw .issuerMismatch(expected: metadata.issuer, found: issuer)
            }
        } else if metadata.authorizationResponseIssParameterSupported {
            throw .missingIssuer(expected: metadata.issuer)
        }
        if let error = parameters["error"] {
            throw .authorizationDenied(error: error, description: parameters["error_description"])
        }
        guard let code = parameters["code"], !code.isEmpty else { throw .missingCode }
        return code
    }

    /// Whether `callback` arrived at `redirect`: scheme, host, port and path compared exactly.
    static func sameEndpoint(_ callback: URL, _ redirect: URL) -> Bool {
        guard let received = URLComponents(url: callback, resolvingAgainstBaseURL: false),
            let expected = URLComponents(url: redirect, resolvingAgainstBaseURL: false)
        else { return false }
        return received.scheme?.lowercased() == expected.scheme?.lowercased()
            && received.host?.lowercased() == expected.host?.lowercased() && received.port == expected.port
            && received.percentEncodedPath == expected.percentEncodedPath
    }

    private static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    // MARK: Token endpoint

    /// Sends a token request with the client's authentication and reads the token.
    func tokenRequest(grant: String, fields: [(String, String)]) async throws(OAuthError) -> OAuthToken {
        do {
            return try await tokenResponse(fields: fields)
        } catch let error as OAuthError {
            throw error
        } catch let error as CourierError {
            throw .tokenRequestFailed(grant: grant, error)
        } catch {
            throw .tokenRequestFailed(grant: grant, .underlying(error, nil))
        }
    }

    /// The token endpoint's answer to `fields`, as ``OAuthToken`` reads it; a non-2xx answer is
    /// ``CourierError/statusCode(_:)``, which a session's refresh classifies (`invalid_grant`
    /// ends the session).
    func tokenResponse(fields: [(String, String)]) async throws -> OAuthToken {
        let endpoint = try endpoint(metadata.tokenEndpoint, "token_endpoint")
        var fields = fields
        var headers: [String: String] = [:]
        authentication.apply(clientID: clientID, to: &fields, headers: &headers)
        let response = try await provider.request(.form(endpoint, fields, headers: headers))
        return try OAuthToken(response: response)
    }

    private func endpoint(_ url: URL?, _ field: String) throws(OAuthError) -> URL {
        guard let url else { throw .missingEndpoint(field) }
        guard OAuthURLPolicy.isAllowed(url) else { throw .insecureEndpoint(url) }
        return url
    }
}

extension OAuthClient {
    /// Signs a person in through their browser, for command-line tools: starts a
    /// ``LoopbackRedirectListener``, builds the authorization request for it, hands the URL to
    /// `open` (print it, or open the browser), waits for the callback and exchanges its code.
    ///
    /// - Parameters:
    ///   - scopes: the scopes asked for.
    ///   - resources: resource indicators (RFC 8707), such as an MCP server's URL.
    ///   - path: the callback's path on the loopback listener.
    ///   - timeout: seconds to wait for the person.
    ///   - open: shows the URL to the person; a throw from it ends the sign-in.
    /// - Throws: ``OAuthError``.
    public func authorizeWithLoopback(
        scopes: [String] = [], resources: [URL] = [], path: String = "/callback", timeout: TimeInterval = 300,
        open: @Sendable (URL) async throws -> Void
    ) async throws(OAuthError) -> OAuthToken {
        let listener = try LoopbackRedirectListener(path: path)
        defer { listener.close() }
        let request = try await authorizationRequest(
            redirectURI: listener.redirectURI, scopes: scopes, resources: resources)
        // The listener answers from now on, while `open` runs: a browser `open` waits for may
        // reach it before `open` returns.
        async let outcome = Self.result { () async throws(OAuthError) -> URL in
            try await listener.callback(for: request, timeout: timeout)
        }
        do {
            try await open(request.url)
        } catch {
            listener.close()
            _ = await outcome
            throw .listenerFailed(
                reason: "the URL could not be shown: \(ErrorText.describe(error, redaction: .default))")
        }
        return try await exchange(callback: try await outcome.get(), for: request)
    }

    private static func result<Value: Sendable>(
        _ operation: () async throws(OAuthError) -> Value
    ) async -> Result<Value, OAuthError> {
        do throws(OAuthError) {
            return .success(try await operation())
        } catch {
            return .failure(error)
        }
    }
}
