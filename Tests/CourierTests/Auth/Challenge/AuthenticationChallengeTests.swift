import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("WWW-Authenticate challenges, read per scheme")
struct AuthenticationChallengeTests {
    @Test("a Bearer and a DPoP challenge in one header: each keeps its own error")
    func twoSchemes() {
        let challenges = AuthenticationChallenge.parse(
            #"Bearer realm="api", error="invalid_token", DPoP error="use_dpop_nonce", algs="ES256 PS256""#)
        #expect(challenges.map(\.scheme) == ["Bearer", "DPoP"])
        #expect(challenges.first(scheme: "bearer")?["error"] == "invalid_token")
        #expect(challenges.first(scheme: "bearer")?["realm"] == "api")
        #expect(challenges.first(scheme: "dpop")?["error"] == "use_dpop_nonce")
        #expect(challenges.first(scheme: "DPoP")?["ALGS"] == "ES256 PS256")
    }

    @Test(
        "schemes alone, token68, unquoted values and spaces around =",
        arguments: [
            ("Basic", [AuthenticationChallenge(scheme: "Basic")]),
            ("Basic, Bearer", [AuthenticationChallenge(scheme: "Basic"), AuthenticationChallenge(scheme: "Bearer")]),
            ("Negotiate YIIabc+/==", [AuthenticationChallenge(scheme: "Negotiate", token68: "YIIabc+/==")]),
            (
                "Bearer error=invalid_token , scope = \"a b\"",
                [AuthenticationChallenge(scheme: "Bearer", parameters: ["error": "invalid_token", "scope": "a b"])]
            ),
            (
                #"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""#,
                [
                    AuthenticationChallenge(
                        scheme: "DPoP",
                        parameters: [
                            "error": "use_dpop_nonce",
                            "error_description": "Resource server requires nonce in DPoP proof",
                        ])
                ]
            ),
            (
                #"Digest realm="a\"b", qop="auth,auth-int", Basic realm="x""#,
                [
                    AuthenticationChallenge(scheme: "Digest", parameters: ["realm": "a\"b", "qop": "auth,auth-int"]),
                    AuthenticationChallenge(scheme: "Basic", parameters: ["realm": "x"]),
                ]
            ),
        ])
    func grammar(header: String, expected: [AuthenticationChallenge]) {
        #expect(AuthenticationChallenge.parse(header) == expected)
    }

    @Test(
        "what is not a challenge is skipped, never guessed at",
        arguments: [
            "", ",,, ,", #"realm="no scheme""#, "=", "\"unterminated", #"Bearer error="unterminated"#, "Bearer ==, ,",
        ])
    func junk(header: String) {
        let challenges = AuthenticationChallenge.parse(header)
        #expect(
            challenges.allSatisfy { $0.scheme.utf8.allSatisfy { $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: "\"") } })
        #expect(challenges.count <= 1)
    }

    @Test("a parameter given twice keeps its first value; names are case-insensitive")
    func duplicates() {
        let challenge = AuthenticationChallenge.parse(#"DPoP Error="use_dpop_nonce", error="invalid_token""#).first
        #expect(challenge?["error"] == "use_dpop_nonce")
    }

    @Test("a hostile header is read up to its limits: 16 KiB and 32 challenges")
    func limits() {
        let many = Array(repeating: "Bearer", count: 1000).joined(separator: ", ")
        #expect(AuthenticationChallenge.parse(many).count == AuthenticationChallenge.maximumChallengeCount)
        let huge = "Bearer error=\"" + String(repeating: "x", count: 1_000_000) + "\", DPoP error=\"use_dpop_nonce\""
        let challenges = AuthenticationChallenge.parse(huge)
        #expect(challenges.first(scheme: "DPoP") == nil)
        #expect(challenges.first(scheme: "Bearer")?["error"] == nil)
    }

    @Test("seeded fuzzing: random bytes never crash and never yield a scheme that is not a token")
    func fuzz() {
        var generator = SeededRandomNumberGenerator(seed: 0xC0FFEE)
        let alphabet = Array(#"Bearer DPoP error="=,\ abc=="use_dpop_nonce"  , "#.utf8) + [0, 0xFF, 0x09]
        for _ in 0..<3000 {
            let length = Int.random(in: 0...80, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            for challenge in AuthenticationChallenge.parse(String(decoding: bytes, as: UTF8.self)) {
                #expect(!challenge.scheme.isEmpty)
                #expect(!challenge.scheme.contains(where: { "=\", ".contains($0) }))
            }
        }
    }

    @Test("a token68 is described by its length only (for Negotiate it is a credential)")
    func descriptionHidesToken68() {
        let challenge = AuthenticationChallenge(scheme: "Negotiate", token68: "SECRET-TICKET")
        #expect(!String(describing: challenge).contains("SECRET"))
        #expect(String(describing: AuthenticationChallenge.parse(#"Bearer error="x""#)[0]) == #"Bearer error="x""#)
    }
}
