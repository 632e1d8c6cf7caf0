import Courier
import CourierTesting
import Foundation

/// A stand-in key for the proof builder's tests: it signs nothing (it returns fixed bytes) and
/// its "SHA-256" is the first 32 bytes of the input, zero-padded. It records what it was asked
/// to sign. The real cryptography is tested in CourierOpenSSLTests, checked by Python.
struct FakeDPoPKey: DPoPKey, CustomStringConvertible {
    enum Failure: Error, CustomStringConvertible {
        case refused
        var description: String { "the token eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl was refused" }
    }

    var signature = Data(repeating: 0xAB, count: 64)
    var signFails = false
    var digestLength = 32
    let signed = LockIsolated<[Data]>([])

    // Coordinates of RFC 9449 §4.1's example key.
    let publicJWK = try! DPoPPublicJWK(
        x: Data(base64Encoded: "l8tFrhx+34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs=")!,
        y: Data(base64Encoded: "9VE4jf/Ok/o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA=")!)

    /// Deliberately not redacted, so tests can see that wrappers hide it.
    var description: String { "FakeDPoPKey(SECRET-PRIVATE-KEY)" }

    func sign(_ signingInput: Data) async throws -> Data {
        signed.withValue { $0.append(signingInput) }
        if signFails { throw Failure.refused }
        return signature
    }

    func sha256(_ data: Data) throws -> Data {
        (data + Data(count: 32)).prefix(digestLength)
    }
}

/// A proof taken apart, as a server would.
struct DecodedProof {
    let parts: [String]
    let headerJSON: String
    let header: [String: Any]
    let claims: [String: Any]
    let signature: Data

    init(_ proof: DPoPProof) throws {
        parts = proof.compactSerialization.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw DecodingFailure() }
        let bytes = try parts.map { part -> Data in
            guard let data = Self.base64URL(part) else { throw DecodingFailure() }
            return data
        }
        headerJSON = String(decoding: bytes[0], as: UTF8.self)
        header = try JSONSerialization.jsonObject(with: bytes[0]) as? [String: Any] ?? [:]
        claims = try JSONSerialization.jsonObject(with: bytes[1]) as? [String: Any] ?? [:]
        signature = bytes[2]
    }

    struct DecodingFailure: Error {}

    static func base64URL(_ text: String) -> Data? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
