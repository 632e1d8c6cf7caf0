import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("DPoP nonces: one per origin, and the challenges that ask for one")
struct DPoPNonceTests {
    static func response(_ status: Int, _ url: String, _ headers: [String: String]) -> HTTPURLResponse {
        HTTPURLResponse(url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    @Test("a nonce is kept for the origin that gave it, from any response, and only sent back there")
    func perOrigin() {
        let nonces = DPoPNonces()
        let api = URL(string: "https://API.example.com/v1/items?page=2")!
        let auth = URL(string: "https://auth.example.com/token")!
        nonces.update(from: Self.response(200, api.absoluteString, ["DPoP-Nonce": "n-api-1"]), for: api)
        nonces.update(from: Self.response(400, auth.absoluteString, ["DPoP-Nonce": "n-as-1"]), for: auth)
        #expect(nonces.nonce(for: URL(string: "https://api.example.com:443/other")!) == "n-api-1")
        #expect(nonces.nonce(for: auth) == "n-as-1")
        #expect(nonces.nonce(for: URL(string: "http://api.example.com/v1")!) == nil)
        #expect(nonces.nonce(for: URL(string: "https://api.example.com:8443/v1")!) == nil)
        // A later answer's nonce replaces it; an answer without one keeps it.
        nonces.update(from: Self.response(200, api.absoluteString, ["DPoP-Nonce": "n-api-2"]), for: api)
        nonces.update(from: Self.response(200, api.absoluteString, [:]), for: api)
        #expect(nonces.nonce(for: api) == "n-api-2")
    }

    @Test(
        "a nonce that is not 1*NQCHAR, or longer than 1 KiB, is not kept",
        arguments: ["", "has space", "quote\"", "back\\slash", "é", String(repeating: "n", count: 1025)])
    func invalidNonce(value: String) {
        let nonces = DPoPNonces()
        let url = URL(string: "https://api.example.com/")!
        #expect(nonces.update(from: Self.response(200, url.absoluteString, ["DPoP-Nonce": value]), for: url) == nil)
        #expect(nonces.nonce(for: url) == nil)
    }

    @Test("at most 64 origins are remembered, the oldest forgotten first")
    func boundedOrigins() {
        let nonces = DPoPNonces()
        for index in 0..<100 {
            let url = URL(string: "https://host\(index).example.com/")!
            nonces.update(from: Self.response(200, url.absoluteString, ["DPoP-Nonce": "n\(index)"]), for: url)
        }
        #expect(nonces.nonce(for: URL(string: "https://host0.example.com/")!) == nil)
        #expect(nonces.nonce(for: URL(string: "https://host99.example.com/")!) == "n99")
        #expect(nonces.nonce(for: URL(string: "https://host36.example.com/")!) == "n36")
    }

    @Test("many tasks updating and reading at once lose nothing and see only nonces that were given")
    func concurrent() async {
        let nonces = DPoPNonces()
        let url = URL(string: "https://api.example.com/")!
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    nonces.update(from: Self.response(200, url.absoluteString, ["DPoP-Nonce": "n\(index)"]), for: url)
                    let seen = nonces.nonce(for: url)
                    #expect(seen?.hasPrefix("n") == true)
                }
            }
        }
        #expect(nonces.nonce(for: url) != nil)
    }

    @Test("a resource server's 401 with a DPoP use_dpop_nonce challenge (beside Bearer) asks for a nonce")
    func resourceServerChallenge() {
        let response = Self.response(
            401, "https://api.example.com/v1",
            [
                "WWW-Authenticate": #"Bearer realm="api", DPoP error="use_dpop_nonce", algs="ES256""#,
                "DPoP-Nonce": "eyJ7S_zG.eyJH0-Z.HX4w-7v",
            ])
        #expect(DPoPNonceChallenge.nonce(in: response, body: Data()) == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
    }

    @Test("an authorization server's 400 with error use_dpop_nonce asks for a nonce")
    func authorizationServerChallenge() {
        let response = Self.response(400, "https://auth.example.com/token", ["DPoP-Nonce": "as-nonce"])
        let body = Data(#"{"error":"use_dpop_nonce","error_description":"Authorization server requires nonce"}"#.utf8)
        #expect(DPoPNonceChallenge.nonce(in: response, body: body) == "as-nonce")
    }

    @Test(
        "an expired token, an invalid proof, a Bearer-only use_dpop_nonce or a challenge without a nonce is not a nonce request",
        arguments: [
            (401, #"DPoP error="invalid_token""#, "n", ""),
            (401, #"DPoP error="invalid_dpop_proof""#, "n", ""),
            (401, #"Bearer error="use_dpop_nonce""#, "n", ""),
            (401, #"DPoP error="use_dpop_nonce""#, "", ""),
            (401, #"DPoP error="use_dpop_nonce""#, "bad nonce", ""),
            (400, "", "n", #"{"error":"invalid_grant"}"#),
            (400, "", "n", "use_dpop_nonce"),
            (403, #"DPoP error="use_dpop_nonce""#, "n", #"{"error":"use_dpop_nonce"}"#),
        ])
    func notNonceRequests(status: Int, challenge: String, nonce: String, body: String) {
        var headers: [String: String] = [:]
        if !challenge.isEmpty { headers["WWW-Authenticate"] = challenge }
        if !nonce.isEmpty { headers["DPoP-Nonce"] = nonce }
        let response = Self.response(status, "https://api.example.com/", headers)
        #expect(DPoPNonceChallenge.nonce(in: response, body: Data(body.utf8)) == nil)
    }
}
