import Foundation

/// A P-256 key that signs DPoP proofs (RFC 9449) with ES256.
///
/// Courier builds the proof (``DPoPProofBuilder``); the key does the cryptography, so the
/// `Courier` module itself needs no crypto library. Use the implementation for your platform —
/// `CryptoKitP256Key` on Apple platforms, `OpenSSLP256Key` (product `CourierOpenSSL`, trait
/// `OpenSSLSigning`) on Linux — or conform your own type, such as a key held by a hardware token.
///
/// The key also supplies SHA-256 (``sha256(_:)``): a proof needs it for `ath` (the hash of the
/// access token) and the key's thumbprint (``jwkThumbprint()``). It lives on the key rather than
/// on a second protocol because anything that signs ES256 already computes SHA-256, and because
/// one value is then all a session carries and stores: there is no second object that could be
/// missing or disagree with the key.
///
/// Never log a key: implementations keep their private key out of `description` and `dump()`.
public protocol DPoPKey: Sendable {
    /// The public half of the key, as the `jwk` of every proof's header.
    var publicJWK: DPoPPublicJWK { get }

    /// Signs `signingInput` with ECDSA P-256 and SHA-256 (JWS `ES256`).
    ///
    /// - Parameter signingInput: The bytes to sign (the ASCII of `header.claims`); the
    ///   implementation hashes them with SHA-256 itself.
    /// - Returns: The 64-byte JOSE signature, `r` then `s`, each 32 bytes big-endian — not DER.
    func sign(_ signingInput: Data) async throws -> Data

    /// The SHA-256 digest of `data` (32 bytes).
    func sha256(_ data: Data) throws -> Data
}

extension DPoPKey {
    /// The key's RFC 7638 JWK thumbprint: base64url (no padding) of the SHA-256 of its
    /// canonical public JWK.
    ///
    /// This is the value a server puts in a DPoP-bound token's `cnf.jkt` claim and that
    /// RFC 9449 §10 sends as `dpop_jkt` in an authorization request.
    public func jwkThumbprint() throws(DPoPError) -> String {
        let digest: Data
        do {
            digest = try sha256(publicJWK.thumbprintInput)
        } catch {
            throw .hashingFailed(error)
        }
        guard digest.count == 32 else { throw .invalidDigest(byteCount: digest.count) }
        return Base64URL.encode(digest)
    }
}
