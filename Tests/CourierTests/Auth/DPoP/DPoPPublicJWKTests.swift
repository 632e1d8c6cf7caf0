import Foundation
import Testing

@testable import Courier

@Suite("DPoP public JWK")
struct DPoPPublicJWKTests {
    @Test("the RFC 7638 thumbprint input is the required members, sorted, without whitespace")
    func thumbprintInput() throws {
        let jwk = FakeDPoPKey().publicJWK
        // RFC 9449 §4.1's example key; its thumbprint is the `jkt` of §6.1 (checked with OpenSSL
        // and Python in CourierOpenSSLTests).
        #expect(
            String(decoding: jwk.thumbprintInput, as: UTF8.self)
                == #"{"crv":"P-256","kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"}"#
        )
        #expect(jwk.members == ["crv": "P-256", "kty": "EC", "x": jwk.xBase64URL, "y": jwk.yBase64URL])
        #expect(try FakeDPoPKey().jwkThumbprint() == Base64URL.encode(jwk.thumbprintInput.prefix(32)))
    }

    @Test("coordinates must be 32 bytes; an uncompressed point may carry its 04 prefix")
    func lengths() throws {
        let x = Data(repeating: 1, count: 32)
        let y = Data(repeating: 2, count: 32)
        #expect(throws: DPoPError.self) { try DPoPPublicJWK(x: x.prefix(31), y: y) }
        #expect(throws: DPoPError.self) { try DPoPPublicJWK(x: x, y: y + [0]) }
        #expect(try DPoPPublicJWK(uncompressedPoint: x + y) == DPoPPublicJWK(x: x, y: y))
        #expect(try DPoPPublicJWK(uncompressedPoint: [0x04] + x + y) == DPoPPublicJWK(x: x, y: y))
        #expect(throws: DPoPError.self) { try DPoPPublicJWK(uncompressedPoint: [0x02] + x) }
        #expect(throws: DPoPError.self) { try DPoPPublicJWK(uncompressedPoint: [0x05] + x + y) }
    }

    @Test("base64url has no padding and uses - and _")
    func base64URL() {
        #expect(Base64URL.encode(Data([0xFB, 0xFF])) == "-_8")
        #expect(Base64URL.decode("-_8") == Data([0xFB, 0xFF]))
        #expect(Base64URL.decode("+/8") == nil)
    }
}
