// Compiled only with the OpenSSLSigning trait (see Package.swift); empty without it.
#if OpenSSLSigning

import Courier
import CourierOpenSSL
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The test server's DPoP mode (Tests/Server/dpop.py) against proofs from `DPoPProofBuilder`
/// and `OpenSSLP256Key`: what a server that enforces RFC 9449 accepts and refuses, read back
/// through Courier's own challenge and nonce readers. The session does not sign with DPoP yet;
/// these requests are signed by hand, as the docs' sign-in helper will.
@Suite("The test server's DPoP mode", .timeLimit(.minutes(5)))
struct DPoPServerModeTests {
    struct Answer {
        let status: Int
        let body: Data
        let response: HTTPURLResponse

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    /// Sends one request, signed with `key`'s proof (and the access token, if given), with
    /// the nonce `nonces` holds for its origin; keeps the nonce the answer gives.
    static func send(
        _ method: HTTPMethod, _ url: URL, key: (any DPoPKey)?, accessToken: String? = nil,
        scheme: String = "DPoP", form: String? = nil, nonces: DPoPNonces, reusing proof: String? = nil
    ) async throws -> (Answer, proof: String?) {
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        var sentProof = proof
        if sentProof == nil, let key {
            let builder = DPoPProofBuilder(key: key)
            sentProof = try await builder.proof(
                method: method, url: url, accessToken: accessToken, nonce: nonces.nonce(for: url)
            ).compactSerialization
        }
        if let sentProof { request.setValue(sentProof, forHTTPHeaderField: "DPoP") }
        if let accessToken { request.setValue("\(scheme) \(accessToken)", forHTTPHeaderField: "Authorization") }
        if let form {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
        }
        let (data, response) = try await URLSession.shared.dataStartedOffPool(for: request)
        let http = try #require(response as? HTTPURLResponse)
        nonces.update(from: http, for: url)
        return (Answer(status: http.statusCode, body: data, response: http), sentProof)
    }

    /// Signs in with the password grant, answering the token endpoint's nonce challenge once.
    static func signIn(_ server: TestServer, key: any DPoPKey, nonces: DPoPNonces) async throws -> (
        Answer, challenges: Int
    ) {
        let url = server.url("/oauth/token")
        var challenges = 0
        for _ in 0..<2 {
            let (answer, _) = try await send(
                .post, url, key: key, form: "grant_type=password&username=u&password=p", nonces: nonces)
            guard answer.status == 400, answer.json["error"] as? String == "use_dpop_nonce" else {
                return (answer, challenges)
            }
            challenges += 1
        }
        Issue.record("the token endpoint asked for a nonce twice")
        throw CancellationError()
    }

    static func server(nonces: Bool) async throws -> TestServer {
        let server = try await TestServer.start()
        var changes = TestServerConfig(reuseDetection: true)
        changes.dpop = .init(nonceFromTokenEndpoint: nonces, nonceFromAPI: nonces)
        try await server.configure(changes)
        return server
    }

    @Test("sign-in and a request with nonces from both servers: one challenge each, then accepted")
    func nonceChallenges() async throws {
        let server = try await Self.server(nonces: true)
        defer { server.stop() }
        let key = try OpenSSLP256Key.generate()
        let nonces = DPoPNonces()
        let (token, challenges) = try await Self.signIn(server, key: key, nonces: nonces)
        #expect(token.status == 200)
        #expect(challenges == 1)
        #expect(token.json["token_type"] as? String == "DPoP")
        let accessToken = try #require(token.json["access_token"] as? String)

        let api = server.url("/api/items")
        let (challenge, _) = try await Self.send(.get, api, key: key, accessToken: accessToken, nonces: nonces)
        #expect(challenge.status == 401)
        let dpop = AuthenticationChallenge.parse(wwwAuthenticateOf: challenge.response).first(scheme: "DPoP")
        #expect(dpop?["error"] == "use_dpop_nonce")
        #expect(challenge.response.value(forHTTPHeaderField: "DPoP-Nonce")?.hasPrefix("rs-") == true)
        let (served, _) = try await Self.send(.get, api, key: key, accessToken: accessToken, nonces: nonces)
        #expect(served.status == 200)
        // One origin serves both here, so the client keeps the nonce it was given last (the
        // API's); the token endpoint would ask once more, as a server behind one origin may.
        #expect(nonces.nonce(for: server.url("/oauth/token"))?.hasPrefix("rs-") == true)

        let counters = try await server.counters()
        #expect(counters.dpopNonceChallenges == 2)
        #expect(counters.dpopBoundIssued == 1)
        #expect(counters.dpopProofRejections == 0)
    }

    @Test("a bound token is refused as Bearer, with another key's proof, with a replayed proof, and without ath")
    func bindingEnforced() async throws {
        let server = try await Self.server(nonces: false)
        defer { server.stop() }
        let key = try OpenSSLP256Key.generate()
        let nonces = DPoPNonces()
        let (token, _) = try await Self.signIn(server, key: key, nonces: nonces)
        let accessToken = try #require(token.json["access_token"] as? String)
        let api = server.url("/api/items")

        let (asBearer, _) = try await Self.send(
            .get, api, key: nil, accessToken: accessToken, scheme: "Bearer", nonces: nonces)
        #expect(asBearer.status == 401)
        let (otherKey, _) = try await Self.send(
            .get, api, key: try OpenSSLP256Key.generate(), accessToken: accessToken, nonces: nonces)
        #expect(otherKey.status == 401)
        #expect(
            AuthenticationChallenge.parse(wwwAuthenticateOf: otherKey.response).first(scheme: "DPoP")?["error"]
                == "invalid_token")
        let (first, proof) = try await Self.send(.get, api, key: key, accessToken: accessToken, nonces: nonces)
        #expect(first.status == 200)
        let (replayed, _) = try await Self.send(
            .get, api, key: key, accessToken: accessToken, nonces: nonces, reusing: proof)
        #expect(replayed.status == 401)
        #expect(
            AuthenticationChallenge.parse(wwwAuthenticateOf: replayed.response).first(scheme: "DPoP")?["error"]
                == "invalid_dpop_proof")
        // A proof made for a token request (no ath) does not carry an access token.
        let tokenProof = try await DPoPProofBuilder(key: key).proof(method: .get, url: api).compactSerialization
        let (noAth, _) = try await Self.send(
            .get, api, key: key, accessToken: accessToken, nonces: nonces, reusing: tokenProof)
        #expect(noAth.status == 401)

        let counters = try await server.counters()
        #expect(counters.dpopBearerMisuses == 1)
        #expect(counters.dpopProofRejections == 3)
    }

    @Test(
        "a bound refresh token is refreshed only with its key's proof; another key's is refused and does not use it up")
    func refreshNeedsTheKey() async throws {
        let server = try await Self.server(nonces: true)
        defer { server.stop() }
        let key = try OpenSSLP256Key.generate()
        let nonces = DPoPNonces()
        let (token, _) = try await Self.signIn(server, key: key, nonces: nonces)
        let refreshToken = try #require(token.json["refresh_token"] as? String)
        let url = server.url("/oauth/token")
        let form = "grant_type=refresh_token&refresh_token=\(refreshToken)"

        let (stolen, _) = try await Self.send(
            .post, url, key: try OpenSSLP256Key.generate(), form: form, nonces: nonces)
        #expect(stolen.status == 400)
        #expect(stolen.json["error"] as? String == "invalid_dpop_proof")
        let (unsigned, _) = try await Self.send(.post, url, key: nil, form: form, nonces: nonces)
        #expect(unsigned.json["error"] as? String == "invalid_dpop_proof")
        let (renewed, _) = try await Self.send(.post, url, key: key, form: form, nonces: nonces)
        #expect(renewed.status == 200)
        #expect(renewed.json["token_type"] as? String == "DPoP")

        let counters = try await server.counters()
        #expect(counters.refreshTokenReuses == 0)
        #expect(counters.refreshSuccesses == 1)
    }
}

#endif
