import Foundation

/// The public half of a P-256 key as a JSON Web Key (RFC 7517): `kty` `EC`, `crv` `P-256`,
/// and the point's coordinates `x` and `y`.
///
/// Keys make it (``DPoPKey/publicJWK``); a proof carries it in its header.
public struct DPoPPublicJWK: Sendable, Hashable {
    /// The key type, always `EC`.
    public var keyType: String { "EC" }

    /// The curve, always `P-256`.
    public var curve: String { "P-256" }

    /// The point's x coordinate: 32 bytes, big-endian.
    public let x: Data

    /// The point's y coordinate: 32 bytes, big-endian.
    public let y: Data

    /// A key from its coordinates, 32 bytes each (big-endian, left-padded with zeros).
    ///
    /// - Throws: ``DPoPError/invalidPublicKey`` when either is not 32 bytes long.
    public init(x: Data, y: Data) throws(DPoPError) {
        guard x.count == 32, y.count == 32 else { throw .invalidPublicKey }
        self.x = Data(x)
        self.y = Data(y)
    }

    /// A key from coordinates a platform's key object gave (CryptoKit's), which are 32 bytes
    /// each by construction: no check that could fail, so a key never needs a `try!`.
    init(unchecked x: Data, _ y: Data) {
        self.x = Data(x)
        self.y = Data(y)
    }

    /// A key from the uncompressed point `x || y` (64 bytes), as CryptoKit's
    /// `rawRepresentation` gives it, or `04 || x || y` (65 bytes), as X9.63 and OpenSSL give it.
    ///
    /// - Throws: ``DPoPError/invalidPublicKey`` for any other length or prefix.
    public init(uncompressedPoint point: Data) throws(DPoPError) {
        var bytes = Data(point)
        if bytes.count == 65, bytes.first == 0x04 { bytes = bytes.dropFirst() }
        guard bytes.count == 64 else { throw .invalidPublicKey }
        try self.init(x: bytes.prefix(32), y: bytes.suffix(32))
    }

    /// `x`, base64url without padding, as in the JWK.
    public var xBase64URL: String { Base64URL.encode(x) }

    /// `y`, base64url without padding, as in the JWK.
    public var yBase64URL: String { Base64URL.encode(y) }

    /// The JWK's members, `crv`, `kty`, `x` and `y`: what a proof's header carries as `jwk`.
    public var members: [String: String] {
        ["crv": curve, "kty": keyType, "x": xBase64URL, "y": yBase64URL]
    }

    /// The RFC 7638 thumbprint input: the required members in lexicographic order, no
    /// whitespace, as UTF-8. Every value is base64url or a fixed name, so nothing needs escaping.
    var thumbprintInput: Data {
        Data(#"{"crv":"\#(curve)","kty":"\#(keyType)","x":"\#(xBase64URL)","y":"\#(yBase64URL)"}"#.utf8)
    }
}

extension DPoPPublicJWK: CustomStringConvertible, CustomReflectable {
    /// The key's type and curve; not its coordinates (a public key still identifies its owner).
    public var description: String { "DPoPPublicJWK(kty: \(keyType), crv: \(curve))" }

    /// What `dump(jwk)` shows: the type and curve, never the coordinates.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["kty": keyType, "crv": curve, "x": "<redacted>", "y": "<redacted>"], displayStyle: .struct)
    }
}
