// Compiled only with the OpenSSLSigning trait (see Package.swift); empty without it.
#if OpenSSLSigning

import COpenSSL
import Courier
import Foundation

/// A `DPoPKey` on Linux: a P-256 key held by OpenSSL 3's libcrypto.
///
/// Add the `OpenSSLSigning` trait and the `CourierOpenSSL` product (needs libcrypto's headers:
/// Debian's `libssl-dev`), then:
///
/// ```swift
/// let key = try OpenSSLP256Key.generate()
/// let saved = try key.pkcs8DERRepresentation()   // store it with the session's token
/// let restored = try OpenSSLP256Key(pkcs8DERRepresentation: saved)
/// let builder = DPoPProofBuilder(key: restored)
/// ```
///
/// Safe to share between tasks and threads. Its `description` and `dump()` never show the key.
public final class OpenSSLP256Key: DPoPKey {
    // The EVP_PKEY is never changed after init, but OpenSSL documents concurrent use only for
    // functions that take it `const`, and EVP_DigestSignInit does not; so every use goes
    // through the package's lock box (and the class is Sendable without `@unchecked`). It is
    // freed once, in deinit.
    private let key: Locked<OpaquePointer>

    /// The public half of the key.
    public let publicJWK: DPoPPublicJWK

    /// Takes ownership of `pkey`, a P-256 key: frees it if it is not one.
    private init(taking pkey: OpaquePointer, operation: OpenSSLKeyError.Operation) throws(OpenSSLKeyError) {
        do {
            try Self.checkIsP256(pkey, operation: operation)
            publicJWK = try Self.publicJWK(of: pkey)
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
        key = Locked(pkey)
    }

    deinit {
        key.withValue { EVP_PKEY_free($0) }
    }

    /// A new random P-256 key.
    public static func generate() throws(OpenSSLKeyError) -> OpenSSLP256Key {
        ERR_clear_error()
        guard let pkey = courier_p256_generate() else {
            throw .fromQueue(.generateKey, fallback: "EVP_PKEY_Q_keygen returned no key")
        }
        return try OpenSSLP256Key(taking: pkey, operation: .generateKey)
    }

    /// The key stored as PKCS#8 DER (``pkcs8DERRepresentation()``, or CryptoKit's
    /// `derRepresentation`).
    ///
    /// - Throws: ``OpenSSLKeyError`` (`.importKey`) when `der` is not a PKCS#8 P-256 private key.
    public convenience init(pkcs8DERRepresentation der: Data) throws(OpenSSLKeyError) {
        ERR_clear_error()
        let info: OpaquePointer? = der.withUnsafeBytes { buffer in
            var cursor = buffer.bindMemory(to: UInt8.self).baseAddress.map { UnsafePointer($0) }
            return d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, buffer.count)
        }
        guard let info else { throw .fromQueue(.importKey, fallback: "not PKCS#8 DER") }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        guard let pkey = EVP_PKCS82PKEY(info) else {
            throw .fromQueue(.importKey, fallback: "OpenSSL could not read the key")
        }
        try self.init(taking: pkey, operation: .importKey)
    }

    /// The private key as PKCS#8 DER, to store it beside the session's token. A secret: store it
    /// as you store the refresh token.
    public func pkcs8DERRepresentation() throws(OpenSSLKeyError) -> Data {
        let result: Result<Data, OpenSSLKeyError> = key.withValue { pkey in
            ERR_clear_error()
            guard let info = EVP_PKEY2PKCS8(pkey) else {
                return .failure(.fromQueue(.exportKey, fallback: "EVP_PKEY2PKCS8 failed"))
            }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            let length = i2d_PKCS8_PRIV_KEY_INFO(info, nil)
            guard length > 0 else { return .failure(.fromQueue(.exportKey, fallback: "no DER length")) }
            var der = Data(count: Int(length))
            let written = der.withUnsafeMutableBytes { buffer in
                var cursor = buffer.bindMemory(to: UInt8.self).baseAddress
                return i2d_PKCS8_PRIV_KEY_INFO(info, &cursor)
            }
            guard written == length else {
                return .failure(.fromQueue(.exportKey, fallback: "DER encoding failed"))
            }
            return .success(der)
        }
        return try result.get()
    }

    /// Signs `signingInput` with ECDSA P-256 and SHA-256 (ES256).
    ///
    /// - Returns: The 64-byte JOSE signature `r || s` (OpenSSL's DER signature, converted).
    public func sign(_ signingInput: Data) throws(OpenSSLKeyError) -> Data {
        // `Locked.withValue` rethrows untyped errors, so the typed error travels in a `Result`.
        let der = key.withValue { pkey in
            Result { () throws(OpenSSLKeyError) in try Self.derSignature(signingInput, with: pkey) }
        }
        return try Self.rawSignature(fromDER: der.get())
    }

    /// Whether `signature` (64-byte `r || s`) is this key's ES256 signature of `message`.
    ///
    /// - Returns: `false` for a signature that does not verify or is not 64 bytes.
    public func verify(signature: Data, for message: Data) throws(OpenSSLKeyError) -> Bool {
        guard let der = try Self.derSignature(fromRaw: signature) else { return false }
        return try key.withValue { pkey in
            Result { () throws(OpenSSLKeyError) in try Self.verify(der: der, message, with: pkey) }
        }.get()
    }

    /// The SHA-256 digest of `data` (32 bytes), computed by libcrypto.
    public func sha256(_ data: Data) throws(OpenSSLKeyError) -> Data {
        try Self.sha256(data)
    }

    /// The SHA-256 digest of `data` (32 bytes), computed by libcrypto.
    public static func sha256(_ data: Data) throws(OpenSSLKeyError) -> Data {
        ERR_clear_error()
        var digest = Data(count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = data.withUnsafeBytes { input in
            digest.withUnsafeMutableBytes { output in
                EVP_Digest(
                    input.baseAddress, input.count, output.bindMemory(to: UInt8.self).baseAddress, &length,
                    sha256Algorithm, nil)
            }
        }
        guard status == 1, length == 32 else { throw .fromQueue(.digest, fallback: "EVP_Digest failed") }
        return digest.prefix(32)
    }
}

extension OpenSSLP256Key: CustomStringConvertible, CustomReflectable {
    /// The key's type; never the key.
    public var description: String { "OpenSSLP256Key(<redacted>)" }

    /// What `dump(key)` shows: never the key.
    public var customMirror: Mirror {
        Mirror(self, children: ["privateKey": "<redacted>", "publicJWK": publicJWK], displayStyle: .class)
    }
}

#endif
