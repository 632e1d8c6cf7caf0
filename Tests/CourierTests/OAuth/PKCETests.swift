import Foundation
import Testing

@testable import Courier

/// PKCE's S256 challenge, which the server recomputes: a wrong digest is a failed sign-in.
@Suite("PKCE and SHA-256")
struct PKCETests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("SHA-256 gives FIPS 180-4's digests, across block boundaries")
    func sha256Vectors() {
        #expect(
            Self.hex(PKCESHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Self.hex(PKCESHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Self.hex(PKCESHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Self.hex(PKCESHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("the challenge of RFC 7636 Appendix B's verifier is the one the RFC gives")
    func rfc7636Example() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("a generated verifier is 43 base64url characters and never repeats")
    func generatedVerifiers() {
        let verifiers = (0..<200).map { _ in PKCE.generate().verifier }
        #expect(Set(verifiers).count == verifiers.count)
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for verifier in verifiers {
            #expect(verifier.count == 43)
            #expect(verifier.allSatisfy(allowed.contains))
        }
    }
}
