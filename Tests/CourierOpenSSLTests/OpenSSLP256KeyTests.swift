// Compiled only with the OpenSSLSigning trait (see Package.swift); empty without it.
#if OpenSSLSigning

import Courier
import CourierOpenSSL
import Foundation
import Testing

@Suite("OpenSSLP256Key: proofs verified by Python's cryptography", .timeLimit(.minutes(5)))
struct OpenSSLP256KeyTests {
    static let now = 1_700_000_000
    let builder: @Sendable (any DPoPKey) -> DPoPProofBuilder = {
        DPoPProofBuilder(key: $0, now: { Date(timeIntervalSince1970: TimeInterval(OpenSSLP256KeyTests.now)) })
    }

    @Test(
        "proofs for GET, POST with an access token and a nonce, and a URL to normalise verify, and the thumbprints agree"
    )
    func proofsVerify() async throws {
        let key = try OpenSSLP256Key.generate()
        let thumbprint = try key.jwkThumbprint()
        let token = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
        let cases: [(HTTPMethod, String, String, String?, String?)] = [
            (.get, "https://resource.example.org/protected", "https://resource.example.org/protected", token, nil),
            (.post, "https://Server.Example.com:443/token?x=1#f", "https://server.example.com/token", nil, nil),
            (
                .post, "http://127.0.0.1:8080/api/items", "http://127.0.0.1:8080/api/items", token,
                "eyJ7S_zG.eyJH0-Z.HX4w-7v"
            ),
            (.delete, "https://api.example.com/a%2fb", "https://api.example.com/a%2Fb", token, "n"),
        ]
        var requests: [PythonVerifier.Request] = []
        for (method, url, htu, accessToken, nonce) in cases {
            let proof = try await builder(key).proof(
                method: method, url: URL(string: url)!, accessToken: accessToken, nonce: nonce)
            requests.append(
                .init(
                    proof: proof.compactSerialization, htm: method.rawValue, htu: htu, access_token: accessToken,
                    nonce: nonce, now: Self.now, thumbprint: thumbprint))
        }
        let verdicts = try await PythonVerifier.verify(requests)
        for verdict in verdicts {
            #expect(verdict.ok, "\(verdict.error ?? "")")
            #expect(verdict.thumbprint == thumbprint)
        }
    }

    @Test("the factory round-trips its keys through PKCS#8, and refuses a foreign key and bytes that are not a key")
    func factory() async throws {
        let factory = OpenSSLP256Key.Factory()
        let key = try await factory.makeKey()
        let restored = try factory.importKey(try factory.exportKey(key))
        #expect(restored.publicJWK == key.publicJWK)
        #expect(throws: OpenSSLKeyError.self) { try factory.exportKey(RFC9449ExampleKey()) }
        #expect(throws: OpenSSLKeyError.self) { try factory.importKey(Data("not a key".utf8)) }
        #expect(throws: OpenSSLKeyError.self) { try factory.importKey(Data()) }
    }

    @Test("the checker is not a rubber stamp: a tampered proof, a wrong htu and a replayed jti are refused")
    func checkerRefuses() async throws {
        let key = try OpenSSLP256Key.generate()
        let url = URL(string: "https://api.example.com/me")!
        let proof = try await builder(key).proof(method: .get, url: url)
        var parts = proof.compactSerialization.split(separator: ".").map(String.init)
        let other = try await builder(key).proof(method: .post, url: url)
        parts[1] = String(other.compactSerialization.split(separator: ".")[1])
        let verdicts = try await PythonVerifier.verify([
            .init(proof: parts.joined(separator: "."), htm: "POST", htu: url.absoluteString, now: Self.now),
            .init(proof: proof.compactSerialization, htm: "GET", htu: "https://api.example.com/you", now: Self.now),
            .init(proof: proof.compactSerialization, htm: "GET", htu: url.absoluteString, now: Self.now),
            .init(proof: proof.compactSerialization, htm: "GET", htu: url.absoluteString, now: Self.now),
        ])
        #expect(verdicts.map(\.ok) == [false, false, true, false])
        #expect(verdicts[0].error?.contains("signature") == true)
        #expect(verdicts[3].error?.contains("jti") == true)
    }

    @Test("32 proofs signed at once by one key all verify, each with its own jti")
    func concurrentSigning() async throws {
        let key = try OpenSSLP256Key.generate()
        let builder = builder(key)
        let url = URL(string: "https://api.example.com/items")!
        let proofs = try await withThrowingTaskGroup(of: DPoPProof.self) { group in
            for _ in 0..<32 {
                group.addTask { try await builder.proof(method: .get, url: url, accessToken: "at") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let verdicts = try await PythonVerifier.verify(
            proofs.map {
                .init(
                    proof: $0.compactSerialization, htm: "GET", htu: url.absoluteString, access_token: "at",
                    now: Self.now)
            })
        #expect(verdicts.allSatisfy { $0.ok }, "\(verdicts.compactMap(\.error))")
        #expect(Set(verdicts.compactMap(\.jti)).count == 32)
    }

    @Test(
        "a key saved as PKCS#8 DER and read back is the same key: same JWK, and its proofs verify with the same thumbprint"
    )
    func pkcs8RoundTrip() async throws {
        let key = try OpenSSLP256Key.generate()
        let der = try key.pkcs8DERRepresentation()
        let restored = try OpenSSLP256Key(pkcs8DERRepresentation: der)
        #expect(restored.publicJWK == key.publicJWK)
        #expect(try restored.pkcs8DERRepresentation() == der)
        let proof = try await builder(restored).proof(method: .get, url: URL(string: "https://a.example/")!)
        let verdict = try #require(
            try await PythonVerifier.verify([
                .init(
                    proof: proof.compactSerialization, htm: "GET", htu: "https://a.example/", now: Self.now,
                    thumbprint: try key.jwkThumbprint())
            ]).first)
        #expect(verdict.ok, "\(verdict.error ?? "")")
        #expect(try OpenSSLP256Key.generate().publicJWK != key.publicJWK)
    }

    @Test("RFC 9449's examples: ath of its access token, and the jkt of its key")
    func rfcVectors() throws {
        let token = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
        let digest = try OpenSSLP256Key.sha256(Data(token.utf8))
        #expect(
            digest.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
                of: "/", with: "_"
            ).replacingOccurrences(of: "=", with: "") == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
        #expect(try RFC9449ExampleKey().jwkThumbprint() == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
    }

    @Test("sign gives 64-byte r || s that verifies; another message, another key or a short signature does not")
    func signAndVerify() throws {
        let key = try OpenSSLP256Key.generate()
        let message = Data("header.claims".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        #expect(try key.verify(signature: signature, for: message))
        #expect(try !key.verify(signature: signature, for: Data("header.claimz".utf8)))
        #expect(try !OpenSSLP256Key.generate().verify(signature: signature, for: message))
        #expect(try !key.verify(signature: signature.prefix(63), for: message))
    }

    @Test("a key that is not PKCS#8 P-256 is an error naming the operation and OpenSSL's reason")
    func importErrors() throws {
        #expect {
            _ = try OpenSSLP256Key(pkcs8DERRepresentation: Data("not a key".utf8))
        } throws: { error in
            guard let error = error as? OpenSSLKeyError else { return false }
            return error.operation == .importKey && !error.reason.isEmpty
                && "\(error)".hasPrefix("OpenSSL: reading a PKCS#8 private key failed: ")
        }
    }

    @Test("a P-384 or an Ed25519 PKCS#8 key is refused, saying why")
    func otherCurves() throws {
        // Throw-away test keys, made with `openssl genpkey` and `openssl pkcs8 -topk8`.
        let p384 =
            "MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDAQrTSGdP2H1o7G+QCscIF5G4xr/oVMXXrHib/kSTU7SeE10BXHcQSG54z2wJB5HiehZANiAAT3gDzJPSgIg+UKtacu796zQw3npo5xSfmZMaJGjXlmfroiMRqhdwXmr3jgwjISnQ8+u0blcR2EPfRtmxiGEbsBpngBoajI+qjfC3Mt35ysVVCpVpD8CTMUK1mLuW/yfi0="
        let ed25519 = "MC4CAQAwBQYDK2VwBCIEIGky3x/+oR1jUgcvWptZs37fj7c9TcNFXG63C7uM5tAL"
        #expect {
            _ = try OpenSSLP256Key(pkcs8DERRepresentation: Data(base64Encoded: p384)!)
        } throws: { error in
            let error = error as? OpenSSLKeyError
            return error?.operation == .importKey && error?.reason == "the key is on secp384r1, not P-256"
        }
        #expect {
            _ = try OpenSSLP256Key(pkcs8DERRepresentation: Data(base64Encoded: ed25519)!)
        } throws: { error in
            let error = error as? OpenSSLKeyError
            return error?.operation == .importKey && error?.reason == "the key is not an elliptic-curve key"
        }
    }

    @Test("Python's cryptography reads the exported PKCS#8 key and finds the JWK's public key in it")
    func pkcs8ReadByPython() async throws {
        let key = try OpenSSLP256Key.generate()
        let proof = try await builder(key).proof(method: .get, url: URL(string: "https://a.example/")!)
        var request = PythonVerifier.Request(
            proof: proof.compactSerialization, htm: "GET", htu: "https://a.example/", now: Self.now)
        request.pkcs8 = try key.pkcs8DERRepresentation().base64EncodedString()
        let other = try OpenSSLP256Key.generate().pkcs8DERRepresentation().base64EncodedString()
        var mismatched = request
        mismatched.pkcs8 = other
        mismatched.proof = try await builder(key).proof(method: .get, url: URL(string: "https://a.example/")!)
            .compactSerialization
        let verdicts = try await PythonVerifier.verify([request, mismatched])
        #expect(verdicts[0].ok, "\(verdicts[0].error ?? "")")
        #expect(verdicts[1].error?.contains("PKCS#8") == true)
    }

    @Test("the key's description and dump never show the private key or its coordinates")
    func redaction() throws {
        let key = try OpenSSLP256Key.generate()
        let der = try key.pkcs8DERRepresentation()
        var dumped = ""
        dump(key, to: &dumped)
        for text in [dumped, "\(key)", String(reflecting: key)] {
            #expect(!text.contains(der.base64EncodedString()))
            #expect(!text.contains(key.publicJWK.xBase64URL))
            #expect(text.contains("redacted"))
        }
    }
}

/// RFC 9449 §4.1's public key, hashed by OpenSSL: its thumbprint is §6.1's `jkt`.
struct RFC9449ExampleKey: DPoPKey {
    let publicJWK = try! DPoPPublicJWK(
        x: Data(base64Encoded: "l8tFrhx+34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs=")!,
        y: Data(base64Encoded: "9VE4jf/Ok/o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA=")!)

    func sign(_ signingInput: Data) async throws -> Data {
        throw PythonVerifier.Failure(description: "no private key")
    }

    func sha256(_ data: Data) throws -> Data { try OpenSSLP256Key.sha256(data) }
}

#endif
