import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("DPoP proof builder")
struct DPoPProofBuilderTests {
    let url = URL(string: "https://resource.example.org/protected?x=1#top")!
    let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_123.9) }

    @Test(
        "a proof is header.claims.signature: the RFC 9449 header with the key's JWK, sorted keys, base64url without padding"
    )
    func structure() async throws {
        let key = FakeDPoPKey()
        let proof = try await DPoPProofBuilder(key: key, now: clock).proof(method: .get, url: url)
        let decoded = try DecodedProof(proof)
        #expect(
            decoded.headerJSON
                == #"{"alg":"ES256","jwk":{"crv":"P-256","kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"},"typ":"dpop+jwt"}"#
        )
        #expect(Set(decoded.claims.keys) == ["jti", "htm", "htu", "iat"])
        #expect(decoded.claims["htm"] as? String == "GET")
        #expect(decoded.claims["htu"] as? String == "https://resource.example.org/protected")
        #expect(decoded.signature == key.signature)
        // The key signed exactly the first two parts.
        #expect(key.signed.value == [Data("\(decoded.parts[0]).\(decoded.parts[1])".utf8)])
        // Claims are written with sorted keys too.
        let claimsJSON = String(decoding: DecodedProof.base64URL(decoded.parts[1])!, as: UTF8.self)
        let order = ["\"htm\"", "\"htu\"", "\"iat\"", "\"jti\""].map { claimsJSON.range(of: $0)!.lowerBound }
        #expect(order == order.sorted())
        #expect(!claimsJSON.contains(" ") && !claimsJSON.contains("\\/"))
    }

    @Test("iat is the clock's time in whole seconds, and the proof says when it was made")
    func issuedAt() async throws {
        let proof = try await DPoPProofBuilder(key: FakeDPoPKey(), now: clock).proof(method: .post, url: url)
        let claims = try DecodedProof(proof).claims
        #expect(claims["iat"] as? Int == 1_700_000_123)
        #expect(proof.issuedAt == Date(timeIntervalSince1970: 1_700_000_123))
        #expect(proof.method == .post)
        #expect(claims["htm"] as? String == "POST")
    }

    @Test("ath is the base64url of the key's SHA-256 of the access token; nonce is carried as given")
    func athAndNonce() async throws {
        let key = FakeDPoPKey()
        let token = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
        let nonce = "eyJ7S_zG.eyJH0-Z.HX4w-7v"
        let proof = try await DPoPProofBuilder(key: key, now: clock).proof(
            method: .get, url: url, accessToken: token, nonce: nonce)
        let claims = try DecodedProof(proof).claims
        #expect(claims["ath"] as? String == DecodedProof.base64URL(try key.sha256(Data(token.utf8))))
        #expect(claims["nonce"] as? String == nonce)
        #expect(Set(claims.keys) == ["jti", "htm", "htu", "iat", "ath", "nonce"])
    }

    @Test("every proof gets a new random jti of 128 bits")
    func uniqueIDs() async throws {
        let builder = DPoPProofBuilder(key: FakeDPoPKey(), now: clock)
        var ids: Set<String> = []
        for _ in 0..<200 {
            let proof = try await builder.proof(method: .get, url: url)
            let jti = try #require(try DecodedProof(proof).claims["jti"] as? String)
            #expect(jti == proof.id)
            #expect(DecodedProof.base64URL(jti)?.count == 16)
            ids.insert(jti)
        }
        #expect(ids.count == 200)
    }

    @Test("a key that returns a DER signature, fails to sign or hashes wrongly is an error that names it")
    func keyFailures() async throws {
        var der = FakeDPoPKey()
        der.signature = Data(repeating: 0x30, count: 71)
        await #expect {
            _ = try await DPoPProofBuilder(key: der, now: clock).proof(method: .get, url: url)
        } throws: { error in
            guard case DPoPError.invalidSignature(byteCount: 71) = error else { return false }
            return "\(error)".contains("71-byte")
        }
        var failing = FakeDPoPKey()
        failing.signFails = true
        await #expect {
            _ = try await DPoPProofBuilder(key: failing, now: clock).proof(method: .get, url: url)
        } throws: { error in
            guard case DPoPError.signingFailed = error else { return false }
            // The underlying error's text passes through redaction: the token in it is gone.
            return "\(error)".contains("could not sign") && !"\(error)".contains("eyJzdWIiOiJhZGEifQ")
        }
        var shortDigest = FakeDPoPKey()
        shortDigest.digestLength = 20
        await #expect(throws: DPoPError.self) {
            _ = try await DPoPProofBuilder(key: shortDigest, now: clock).proof(method: .get, url: url, accessToken: "t")
        }
        #expect(throws: DPoPError.self) { _ = try shortDigest.jwkThumbprint() }
    }

    @Test("an invalid method or an unusable clock is refused before anything is signed")
    func invalidInputs() async throws {
        let key = FakeDPoPKey()
        await #expect(throws: DPoPError.self) {
            _ = try await DPoPProofBuilder(key: key, now: clock).proof(method: "GE T", url: url)
        }
        await #expect(throws: DPoPError.self) {
            _ = try await DPoPProofBuilder(key: key, now: clock).proof(method: "", url: url)
        }
        await #expect(throws: DPoPError.self) {
            _ = try await DPoPProofBuilder(key: key, now: { Date(timeIntervalSince1970: .nan) }).proof(
                method: .get, url: url)
        }
        await #expect(throws: DPoPError.self) {
            _ = try await DPoPProofBuilder(key: key, now: clock).proof(method: .get, url: URL(string: "ftp://h/x")!)
        }
        #expect(key.signed.value.isEmpty)
    }

    @Test("descriptions and dumps never show the proof, its id or the key")
    func noSecretsInDescriptions() async throws {
        let key = FakeDPoPKey()
        let builder = DPoPProofBuilder(key: key, now: clock)
        let proof = try await builder.proof(method: .get, url: url, accessToken: "at-secret", nonce: "n-1")
        let parts = proof.compactSerialization.split(separator: ".").map(String.init)
        var texts = [String(describing: proof), String(reflecting: proof), "\(builder)", "\(key.publicJWK)"]
        for value in [proof, builder, key.publicJWK] as [Any] {
            var dumped = ""
            dump(value, to: &dumped)
            texts.append(dumped)
        }
        for text in texts {
            for part in parts { #expect(!text.contains(part)) }
            #expect(!text.contains(proof.id))
            #expect(!text.contains("SECRET-PRIVATE-KEY"))
            #expect(!text.contains(key.publicJWK.xBase64URL))
            #expect(!text.contains("at-secret"))
        }
        #expect("\(proof)".contains("GET"))
    }

    @Test("a DPoP header is a secret for every redaction by default; DPoP-Nonce is not")
    func dpopHeaderIsSecret() async throws {
        let proof = try await DPoPProofBuilder(key: FakeDPoPKey(), now: clock).proof(method: .get, url: url)
        let headers = ["DPoP": proof.compactSerialization, "DPoP-Nonce": "n-1"]
        let described = Redaction.default.describe(headers: headers)
        #expect(!described.contains(proof.compactSerialization))
        #expect(described.contains("n-1"))
        #expect(Redaction.default.isSecret(header: "dpop"))
    }
}

@Suite("DPoP proof JSON and base64url, written by hand")
struct DPoPProofEncodingTests {
    @Test("a claim with quotes, backslashes or control characters is escaped as JSON, and reads back as it was")
    func escaping() throws {
        for text in ["plain", #"a"b"#, #"back\slash"#, "line\nbreak\ttab\r", "\u{1}\u{1f}", "/slash/", "ünï€ode"] {
            let json = "[" + DPoPProofBuilder.quoted(text) + "]"
            let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]
            #expect(decoded == [text], "\(json)")
        }
        #expect(DPoPProofBuilder.quoted("/a/b") == #""/a/b""#)
    }

    @Test("base64url matches Foundation's base64 with the URL alphabet and no padding, for every length")
    func base64URL() {
        var generator = SeededRandomNumberGenerator(seed: 9449)
        for length in 0..<70 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let expected = bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected)
        }
    }
}
