import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The checks on an authorization response, before anything reaches the token endpoint.
@Suite("Authorization response checks", .timeLimit(.minutes(20)))
struct AuthorizationResponseTests {
    static let metadata = AuthorizationServerMetadata(
        issuer: URL(string: "https://auth.example.com")!,
        authorizationEndpoint: URL(string: "https://auth.example.com/authorize?tenant=7")!,
        tokenEndpoint: URL(string: "https://auth.example.com/token")!,
        authorizationResponseIssParameterSupported: true)
    static let redirect = URL(string: "http://127.0.0.1:49152/callback")!

    func client(_ transport: ScriptedTransport, authentication: OAuthClientAuthentication = .none) -> OAuthClient {
        OAuthClient(metadata: Self.metadata, clientID: "cli", authentication: authentication, transport: transport)
    }

    func callback(_ request: AuthorizationRequest, _ query: String) -> URL {
        URL(string: "\(request.redirectURI.absoluteString)?\(query)")!
    }

    @Test("the authorization URL carries code, client, exact redirect, state, S256 challenge, scopes and resources")
    func authorizationURL() async throws {
        let request = try await client(ScriptedTransport()).authorizationRequest(
            redirectURI: Self.redirect, scopes: ["read", "write"],
            resources: [URL(string: "https://mcp.example.com/mcp")!])
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        #expect(value("tenant") == "7")
        #expect(value("response_type") == "code")
        #expect(value("client_id") == "cli")
        #expect(value("redirect_uri") == Self.redirect.absoluteString)
        #expect(value("state") == request.state)
        #expect(value("code_challenge_method") == "S256")
        #expect(value("code_challenge") == request.pkce.challenge)
        #expect(value("scope") == "read write")
        #expect(value("resource") == "https://mcp.example.com/mcp")
        #expect(!request.url.absoluteString.contains(request.pkce.verifier))
    }

    @Test("the PKCE verifier is in no description and no dump")
    func verifierRedacted() async throws {
        let request = try await client(ScriptedTransport()).authorizationRequest(redirectURI: Self.redirect)
        var dumped = ""
        dump(request, to: &dumped)
        #expect(!dumped.contains(request.pkce.verifier))
        #expect(!String(describing: request).contains(request.pkce.verifier))
        var dumpedAuthentication = ""
        dump(OAuthClientAuthentication.clientSecretBasic("s3cret-value"), to: &dumpedAuthentication)
        #expect(!dumpedAuthentication.contains("s3cret-value"))
        #expect(!String(describing: OAuthClientAuthentication.clientSecretPost("s3cret-value")).contains("s3cret"))
    }

    @Test("a wrong state, a wrong or missing iss, another redirect or an error never reach the token endpoint")
    func refusedCallbacks() async throws {
        let transport = ScriptedTransport()
        let client = client(transport)
        let request = try await client.authorizationRequest(redirectURI: Self.redirect)
        let iss = "iss=https%3A%2F%2Fauth.example.com"
        let cases: [(URL, (OAuthError) -> Bool)] = [
            (callback(request, "code=c&state=forged&\(iss)"), { if case .stateMismatch = $0 { true } else { false } }),
            (
                callback(request, "code=c&state=\(request.state)&iss=https%3A%2F%2Fevil.example.com"),
                {
                    if case .issuerMismatch(_, let found) = $0 { found == "https://evil.example.com" } else { false }
                }
            ),
            (
                callback(request, "code=c&state=\(request.state)"),
                { if case .missingIssuer = $0 { true } else { false } }
            ),
            (
                URL(string: "http://127.0.0.1:49153/callback?code=c&state=\(request.state)&\(iss)")!,
                {
                    if case .redirectMismatch = $0 { true } else { false }
                }
            ),
            (
                URL(string: "http://127.0.0.1:49152/other?code=c&state=\(request.state)&\(iss)")!,
                {
                    if case .redirectMismatch = $0 { true } else { false }
                }
            ),
            (
                callback(request, "error=access_denied&error_description=no&state=\(request.state)&\(iss)"),
                {
                    if case .authorizationDenied(let error, _) = $0 { error == "access_denied" } else { false }
                }
            ),
            (callback(request, "state=\(request.state)&\(iss)"), { if case .missingCode = $0 { true } else { false } }),
        ]
        for (url, isExpected) in cases {
            let error = await #expect(throws: OAuthError.self) {
                try await client.exchange(callback: url, for: request)
            }
            #expect(error.map(isExpected) == true, "\(url): \(String(describing: error))")
            #expect(error.map { !String(describing: $0).contains("code=c") } == true)
        }
        #expect(transport.requestCount == 0)
    }

    @Test("a good callback sends the code, exact redirect, verifier and resource, and client_secret_basic in a header")
    func tokenRequest() async throws {
        let transport = ScriptedTransport()
        transport.enqueue(
            .json(#"{"access_token":"at-1","token_type":"Bearer","expires_in":60,"refresh_token":"rt-1"}"#),
            for: .post("/token"))
        let client = client(transport, authentication: .clientSecretBasic("p@ss word"))
        let resource = URL(string: "https://mcp.example.com/mcp")!
        let request = try await client.authorizationRequest(redirectURI: Self.redirect, resources: [resource])
        let token = try await client.exchange(
            callback: callback(request, "code=the-code&state=\(request.state)&iss=https%3A%2F%2Fauth.example.com"),
            for: request)
        #expect(token.accessToken == "at-1")
        #expect(token.refreshToken == "rt-1")
        let sent = try #require(transport.lastRequest)
        let body = String(decoding: sent.httpBody ?? Data(), as: UTF8.self)
        let fields = Dictionary(
            uniqueKeysWithValues: (URLComponents(string: "?" + body)?.queryItems ?? []).map {
                ($0.name, $0.value ?? "")
            })
        #expect(fields["grant_type"] == "authorization_code")
        #expect(fields["code"] == "the-code")
        #expect(fields["redirect_uri"] == Self.redirect.absoluteString)
        #expect(fields["code_verifier"] == request.pkce.verifier)
        #expect(fields["resource"] == resource.absoluteString)
        #expect(fields["client_secret"] == nil)
        let basic = Data("cli:p%40ss%20word".utf8).base64EncodedString()
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Basic \(basic)")
    }
}

/// The authorization code is a secret where it travels: a callback's query and a token form.
@Suite("Authorization code redaction")
struct AuthorizationCodeRedactionTests {
    @Test("a code in a URL query or a form is hidden; a JSON business code is still shown")
    func codeRedacted() {
        let url = URL(string: "http://127.0.0.1:5000/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz")!
        #expect(!Redaction.default.redact(url: url).contains("SplxlOBeZQQYbYS6WxSbIA"))
        #expect(Redaction.default.redact(url: url).contains("state=xyz"))
        #expect(!Redaction.default.redact(form: "grant_type=authorization_code&code=SplxlOBe").contains("SplxlOBe"))
        #expect(Redaction.none.redact(form: "code=SplxlOBe").contains("SplxlOBe"))
        #expect(Redaction.default.redact(text: #"{"code":"8","message":"token expired"}"#).contains(#""8""#))
    }
}
