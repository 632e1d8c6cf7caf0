import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A factory of ``FakeDPoPKey``s whose stored form is a label: enough to see which key signs,
/// and that the key travels with the token. The real cryptography, and a server that checks
/// it, are in CourierOpenSSLTests.
struct FakeKeyFactory: DPoPKeyFactory {
    struct Unknown: Error {}

    let made = LockIsolated(0)

    func makeKey() async throws -> any DPoPKey {
        let count = made.withValue { count in
            count += 1
            return count
        }
        return FakeDPoPKey(signature: Data(repeating: UInt8(count), count: 64))
    }

    func exportKey(_ key: any DPoPKey) throws -> Data {
        guard let key = key as? FakeDPoPKey else { throw Unknown() }
        return Data("key-\(key.signature[0])".utf8)
    }

    func importKey(_ data: Data) throws -> any DPoPKey {
        let label = String(decoding: data, as: UTF8.self)
        guard label.hasPrefix("key-"), let number = UInt8(label.dropFirst(4)) else { throw Unknown() }
        return FakeDPoPKey(signature: Data(repeating: number, count: 64))
    }
}

@Suite("DPoP sessions: what each request carries, nonce retries, and what is never a refresh")
struct DPoPSessionSigningTests {
    struct API: TargetType {
        var method: HTTPMethod = .get
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "items" }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    struct TokenRequest: TargetType, AccessTokenAuthorizable {
        var baseURL: URL { URL(string: "https://auth.example.com")! }
        var path: String { "token" }
        var method: HTTPMethod { .post }
        var task: RequestTask {
            .requestParameters(parameters: ["grant_type": "refresh_token"], encoding: URLEncoding.httpBody)
        }
        var headers: [String: String]? { nil }
        var authorizationType: AuthorizationType? { nil }
    }

    static let boundToken = OAuthToken(
        accessToken: "at-1", refreshToken: "rt-1", tokenType: "DPoP", expiresAt: Date().addingTimeInterval(3600),
        issuedAt: Date(), dpopKey: Data("key-7".utf8))

    static func claims(of request: URLRequest?) throws -> [String: Any] {
        let proof = try #require(request?.value(forHTTPHeaderField: "DPoP"))
        let parts = proof.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let data = try #require(DecodedProof.base64URL(parts[1]))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func session(
        token: OAuthToken? = boundToken, refreshes: CallCounter = CallCounter(),
        refresh: @escaping @Sendable (OAuthToken) async throws -> OAuthToken = { $0 }
    ) async throws -> AuthSession {
        let store = InMemoryTokenStore()
        store.save(token)
        return AuthSession(
            store: store,
            refresh: { token in
                refreshes.increment()
                return try await refresh(token)
            }, dpop: FakeKeyFactory())
    }

    @Test("a bound token goes as Authorization: DPoP with a proof carrying ath and htu, signed by the token's key")
    func signsWithTheTokensKey() async throws {
        let transport = ScriptedTransport(replies: [.status(200)])
        let provider = RefreshableProvider<API>(auth: try await Self.session(), transport: transport)
        _ = try await provider.request(API())
        let sent = transport.lastRequest
        #expect(sent?.value(forHTTPHeaderField: "Authorization") == "DPoP at-1")
        let claims = try Self.claims(of: sent)
        #expect(claims["htm"] as? String == "GET")
        #expect(claims["htu"] as? String == "https://api.example.com/items")
        #expect(claims["ath"] as? String == DecodedProof.base64URL((Data("at-1".utf8) + Data(count: 32)).prefix(32)))
        #expect(claims["nonce"] == nil)
        let signature = try #require(sent?.value(forHTTPHeaderField: "DPoP")?.split(separator: ".").last)
        #expect(DecodedProof.base64URL(String(signature)) == Data(repeating: 7, count: 64))
    }

    @Test("a bearer token in a DPoP session (a server that did not bind it) goes as a bearer token, with no proof")
    func bearerStaysBearer() async throws {
        let transport = ScriptedTransport(replies: [.status(200)])
        let bearer = OAuthToken(accessToken: "plain", expiresAt: Date().addingTimeInterval(3600))
        let provider = RefreshableProvider<API>(auth: try await Self.session(token: bearer), transport: transport)
        _ = try await provider.request(API())
        #expect(transport.lastRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer plain")
        #expect(transport.lastRequest?.value(forHTTPHeaderField: "DPoP") == nil)
    }

    @Test(
        "use_dpop_nonce from a resource server, beside a Bearer challenge: sent again once with the nonce, no refresh")
    func resourceNonceRetry() async throws {
        for method in [HTTPMethod.get, .post] {
            let challenge = ScriptedTransport.Reply.status(
                401,
                headers: [
                    "WWW-Authenticate": #"Bearer realm="api", DPoP error="use_dpop_nonce", algs="ES256""#,
                    "DPoP-Nonce": "rs-nonce-1",
                ])
            let transport = ScriptedTransport(replies: [challenge, .status(200), .status(200)])
            let refreshes = CallCounter()
            let provider = RefreshableProvider<API>(
                auth: try await Self.session(refreshes: refreshes), transport: transport)
            #expect(try await provider.request(API(method: method)).statusCode == 200)
            #expect(transport.requests.count == 2)
            #expect(try Self.claims(of: transport.requests.first)["nonce"] == nil)
            #expect(try Self.claims(of: transport.requests.last)["nonce"] as? String == "rs-nonce-1")
            // A new proof, not the refused one again.
            #expect(
                transport.requests.first?.value(forHTTPHeaderField: "DPoP")
                    != transport.requests.last?.value(forHTTPHeaderField: "DPoP"))
            #expect(refreshes.value == 0)
            // The nonce is kept for the origin: the next request carries it from the start.
            _ = try await provider.request(API())
            #expect(try Self.claims(of: transport.lastRequest)["nonce"] as? String == "rs-nonce-1")
        }
    }

    @Test("a second use_dpop_nonce in a row is the answer: a request is sent again for a nonce once, never more")
    func nonceRetriedOnlyOnce() async throws {
        let challenge = ScriptedTransport.Reply.status(
            401, headers: ["WWW-Authenticate": #"DPoP error="use_dpop_nonce""#, "DPoP-Nonce": "n"])
        let transport = ScriptedTransport(replies: [challenge, challenge])
        let refreshes = CallCounter()
        let provider = RefreshableProvider<API>(
            auth: try await Self.session(refreshes: refreshes), transport: transport)
        let response = try await provider.request(API(method: .post))
        #expect(response.statusCode == 401)
        #expect(transport.requests.count == 2)
        #expect(refreshes.value == 0)
    }

    @Test("invalid_dpop_proof is not a rejected token: no refresh, and the error says why without the token")
    func invalidProofIsNotARefresh() async throws {
        let refused = ScriptedTransport.Reply.status(
            401,
            headers: [
                "WWW-Authenticate":
                    #"DPoP error="invalid_dpop_proof", error_description="the proof's htu does not match""#
            ])
        let transport = ScriptedTransport(replies: [refused])
        let refreshes = CallCounter()
        let provider = RefreshableProvider<API>(
            auth: try await Self.session(refreshes: refreshes), transport: transport)
        let response = try await provider.request(API())
        #expect(response.statusCode == 401)
        #expect(refreshes.value == 0)
        let description = String(describing: CourierError.statusCode(response))
        #expect(description.contains("invalid_dpop_proof: the proof's htu does not match"))
        #expect(!description.contains("at-1"))
    }

    @Test(
        "the refresh's token request carries a proof without ath, answers the token endpoint's nonce once, keeps the key"
    )
    func refreshTokenRequest() async throws {
        let tokenTransport = ScriptedTransport(replies: [
            .json(#"{"error":"use_dpop_nonce"}"#, statusCode: 400, headers: ["DPoP-Nonce": "as-nonce-1"]),
            .json(#"{"access_token":"at-2","token_type":"DPoP","refresh_token":"rt-2","expires_in":3600}"#),
        ])
        let tokens = Provider<TokenRequest>(transport: tokenTransport)
        let session = try await Self.session(refresh: { _ in
            try OAuthToken(response: await tokens.request(TokenRequest()))
        })
        let renewed = try await session.refresh(rejecting: Self.boundToken)
        #expect(renewed.accessToken == "at-2")
        #expect(renewed.dpopKey == Self.boundToken.dpopKey)
        #expect(tokenTransport.requests.count == 2)
        let first = try Self.claims(of: tokenTransport.requests.first)
        #expect(first["ath"] == nil)
        #expect(first["htm"] as? String == "POST")
        #expect(first["htu"] as? String == "https://auth.example.com/token")
        #expect(try Self.claims(of: tokenTransport.requests.last)["nonce"] as? String == "as-nonce-1")
        #expect(tokenTransport.requests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == nil })
    }

    @Test("sign-in through the session gets a new key, signs its token request with it, and stores the token with it")
    func signInGetsANewKey() async throws {
        let tokenTransport = ScriptedTransport(replies: [
            .json(#"{"access_token":"at-9","token_type":"DPoP","refresh_token":"rt-9","expires_in":3600}"#)
        ])
        let tokens = Provider<TokenRequest>(transport: tokenTransport)
        let store = InMemoryTokenStore()
        let session = AuthSession(store: store, refresh: { $0 }, dpop: FakeKeyFactory())
        let token = try await session.signIn { try OAuthToken(response: await tokens.request(TokenRequest())) }
        #expect(token.dpopKey == Data("key-1".utf8))
        #expect(store.load()?.dpopKey == Data("key-1".utf8))
        #expect(tokenTransport.lastRequest?.value(forHTTPHeaderField: "DPoP") != nil)
        // A request outside the session's closures carries no token-request proof.
        let plain = ScriptedTransport(replies: [.status(200)])
        _ = try await Provider<TokenRequest>(transport: plain).request(TokenRequest())
        #expect(plain.lastRequest?.value(forHTTPHeaderField: "DPoP") == nil)
    }

    @Test("a first token from acquire is bound to a new key, and its token request carries a proof made with it")
    func acquireGetsANewKey() async throws {
        let tokenTransport = ScriptedTransport(replies: [
            .json(#"{"access_token":"at-a","token_type":"DPoP","expires_in":3600}"#)
        ])
        let tokens = Provider<TokenRequest>(transport: tokenTransport)
        let api = ScriptedTransport(replies: [.status(200)])
        let session = AuthSession(
            refresh: { $0 }, acquire: { try OAuthToken(response: await tokens.request(TokenRequest())) },
            dpop: FakeKeyFactory())
        _ = try await RefreshableProvider<API>(auth: session, transport: api).request(API())
        #expect(await session.token?.dpopKey == Data("key-1".utf8))
        let tokenProof = try #require(tokenTransport.lastRequest?.value(forHTTPHeaderField: "DPoP"))
        #expect(DecodedProof.base64URL(String(tokenProof.split(separator: ".").last!)) == Data(repeating: 1, count: 64))
        #expect(api.lastRequest?.value(forHTTPHeaderField: "Authorization") == "DPoP at-a")
    }

    @Test("the proof, like Authorization, is dropped on a redirect to another origin")
    func proofIsOriginBound() {
        #expect(CrossOriginRedirect.dropsHeader(named: "DPoP"))
        #expect(CrossOriginRedirect.dropsHeader(named: "dpop"))
    }

    @Test("the proof and Authorization replace headers of the same name in any case, and nothing else")
    func headersReplaced() {
        var request = URLRequest(url: URL(string: "https://api.example.com/items")!)
        request.allHTTPHeaderFields = ["dpop": "old", "AUTHORIZATION": "Bearer old", "X-Dpop-Extra": "kept"]
        let signed = DPoPSigner.setting(["Authorization": "DPoP at", "DPoP": "proof"], on: request)
        #expect(signed.allHTTPHeaderFields == ["Authorization": "DPoP at", "DPoP": "proof", "X-Dpop-Extra": "kept"])
        #expect(DPoPSigner.sameHeaderName("dPoP", "DPoP"))
        #expect(!DPoPSigner.sameHeaderName("DPoQ", "DPoP"))
        #expect(!DPoPSigner.sameHeaderName("DPo@", "DPo`"))
    }

    @Test("a stored key too large to be one a factory made ends the session before the factory sees it")
    func oversizedStoredKey() async throws {
        let token = OAuthToken(
            accessToken: "at-1", refreshToken: "rt-1", tokenType: "DPoP", expiresAt: Date().addingTimeInterval(3600),
            dpopKey: Data(repeating: 0x41, count: DPoPSigner.maximumStoredKeyLength + 1))
        let transport = ScriptedTransport(replies: [.status(200)])
        let session = try await Self.session(token: token)
        await #expect(throws: CourierError.self) {
            _ = try await RefreshableProvider<API>(auth: session, transport: transport).request(API())
        }
        #expect(session.sessionExpiry?.cause == .dpopKeyLost)
        #expect(transport.requests.isEmpty)
    }

    @Test("a factory that cannot make a key fails the sign-in with a reason, and stores nothing")
    func keyFactoryFailure() async throws {
        struct Broken: DPoPKeyFactory {
            struct Failure: Error {}
            func makeKey() async throws -> any DPoPKey { throw Failure() }
            func exportKey(_ key: any DPoPKey) throws -> Data { Data() }
            func importKey(_ data: Data) throws -> any DPoPKey { throw Failure() }
        }
        let store = InMemoryTokenStore()
        let calls = CallCounter()
        let session = AuthSession(store: store, refresh: { $0 }, dpop: Broken())
        await #expect {
            try await session.signIn {
                calls.increment()
                return OAuthToken(accessToken: "never")
            }
        } throws: { error in
            guard case .underlying(let underlying, _) = error as? CourierError,
                case .keyUnavailable = underlying as? DPoPError
            else { return false }
            return String(describing: underlying).contains("could not make or export a new key")
        }
        #expect(calls.value == 0)
        #expect(store.load() == nil)
    }

    @Test("on a bearer session, signIn(with:) stores what the closure returns, with no key")
    func bearerSignInWithClosure() async throws {
        let store = InMemoryTokenStore()
        let session = AuthSession(store: store, refresh: { $0 })
        let token = try await session.signIn { OAuthToken(accessToken: "plain") }
        #expect(token.dpopKey == nil)
        #expect(store.load() == OAuthToken(accessToken: "plain"))
        #expect(await session.token?.accessToken == "plain")
    }

    @Test("a token's key never shows in its description or dump")
    func keyIsRedacted() {
        let token = Self.boundToken
        var dumped = ""
        dump(token, to: &dumped)
        let secret = String(decoding: token.dpopKey!, as: UTF8.self)
        #expect(!dumped.contains(secret))
        #expect(!token.description.contains(secret))
        #expect(token.description.contains("DPoP key present"))
        #expect(!dumped.contains(token.dpopKey!.base64EncodedString()))
    }
}
