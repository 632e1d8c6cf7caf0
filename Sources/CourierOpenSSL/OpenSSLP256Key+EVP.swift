// Compiled only with the OpenSSLSigning trait (see Package.swift); empty without it.
#if OpenSSLSigning

import COpenSSL
import Courier
import Foundation

/// The libcrypto calls behind ``OpenSSLP256Key``: each takes the EVP_PKEY it works on (the
/// caller holds the key's lock) and reports OpenSSL's reason when it fails.
extension OpenSSLP256Key {
    static func checkIsP256(_ pkey: OpaquePointer, operation: OpenSSLKeyError.Operation) throws(OpenSSLKeyError) {
        guard EVP_PKEY_get_base_id(pkey) == courier_evp_pkey_ec else {
            throw OpenSSLKeyError(operation: operation, reason: "the key is not an elliptic-curve key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1 else {
            throw .fromQueue(operation, fallback: "the key's curve cannot be read")
        }
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" || curve == "P-256" else {
            throw OpenSSLKeyError(operation: operation, reason: "the key is on \(curve), not P-256")
        }
    }

    static func publicJWK(of pkey: OpaquePointer) throws(OpenSSLKeyError) -> DPoPPublicJWK {
        let x = try coordinate(courier_param_ec_pub_x, of: pkey)
        let y = try coordinate(courier_param_ec_pub_y, of: pkey)
        do {
            return try DPoPPublicJWK(x: x, y: y)
        } catch {
            throw OpenSSLKeyError(operation: .readPublicKey, reason: "coordinates are not 32 bytes")
        }
    }

    private static func coordinate(_ name: UnsafePointer<CChar>, of pkey: OpaquePointer) throws(OpenSSLKeyError)
        -> Data
    {
        ERR_clear_error()
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &number) == 1, let number else {
            throw .fromQueue(.readPublicKey, fallback: "EVP_PKEY_get_bn_param failed")
        }
        defer { BN_free(number) }
        return try bigEndian32(number, operation: .readPublicKey)
    }

    /// `number` as exactly 32 big-endian bytes.
    private static func bigEndian32(_ number: OpaquePointer, operation: OpenSSLKeyError.Operation)
        throws(OpenSSLKeyError) -> Data
    {
        var bytes = Data(count: 32)
        let written = bytes.withUnsafeMutableBytes {
            BN_bn2binpad(number, $0.bindMemory(to: UInt8.self).baseAddress, 32)
        }
        guard written == 32 else { throw .fromQueue(operation, fallback: "a number does not fit 32 bytes") }
        return bytes
    }

    /// OpenSSL's ECDSA signature (DER) of `message` with SHA-256.
    static func derSignature(_ message: Data, with pkey: OpaquePointer) throws(OpenSSLKeyError) -> Data {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw .fromQueue(.sign, fallback: "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, sha256Algorithm, nil, pkey) == 1 else {
            throw .fromQueue(.sign, fallback: "EVP_DigestSignInit failed")
        }
        var length = 0
        let status: Int32 = message.withUnsafeBytes { input in
            let bytes = input.bindMemory(to: UInt8.self).baseAddress
            guard EVP_DigestSign(context, nil, &length, bytes, input.count) == 1 else { return 0 }
            return 1
        }
        guard status == 1, length > 0 else { throw .fromQueue(.sign, fallback: "EVP_DigestSign gave no length") }
        var signature = Data(count: length)
        let signed: Int32 = message.withUnsafeBytes { input in
            signature.withUnsafeMutableBytes { output in
                EVP_DigestSign(
                    context, output.bindMemory(to: UInt8.self).baseAddress, &length,
                    input.bindMemory(to: UInt8.self).baseAddress, input.count)
            }
        }
        guard signed == 1 else { throw .fromQueue(.sign, fallback: "EVP_DigestSign failed") }
        return signature.prefix(length)
    }

    /// The JOSE form (`r || s`, 32 bytes each) of a DER ECDSA-Sig-Value.
    static func rawSignature(fromDER der: Data) throws(OpenSSLKeyError) -> Data {
        ERR_clear_error()
        let parsed: OpaquePointer? = der.withUnsafeBytes { buffer in
            var cursor = buffer.bindMemory(to: UInt8.self).baseAddress.map { UnsafePointer($0) }
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw .fromQueue(.sign, fallback: "the DER signature cannot be read") }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        guard let r, let s else { throw OpenSSLKeyError(operation: .sign, reason: "the signature has no r or s") }
        return try bigEndian32(r, operation: .sign) + bigEndian32(s, operation: .sign)
    }

    /// The DER form of a JOSE signature, or `nil` when it is not 64 bytes.
    static func derSignature(fromRaw raw: Data) throws(OpenSSLKeyError) -> Data? {
        guard raw.count == 64 else { return nil }
        ERR_clear_error()
        guard let signature = ECDSA_SIG_new() else { throw .fromQueue(.verify, fallback: "ECDSA_SIG_new failed") }
        defer { ECDSA_SIG_free(signature) }
        let bytes = Array(raw)
        let r = BN_bin2bn(bytes, 32, nil)
        let s = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        // ECDSA_SIG_set0 takes both numbers on success; on failure they are still ours.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw .fromQueue(.verify, fallback: "ECDSA_SIG_set0 failed")
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw .fromQueue(.verify, fallback: "i2d_ECDSA_SIG failed") }
        var der = Data(count: Int(length))
        let written = der.withUnsafeMutableBytes { buffer in
            var cursor = buffer.bindMemory(to: UInt8.self).baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw .fromQueue(.verify, fallback: "i2d_ECDSA_SIG failed") }
        return der
    }

    static func verify(der: Data, _ message: Data, with pkey: OpaquePointer) throws(OpenSSLKeyError) -> Bool {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw .fromQueue(.verify, fallback: "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, sha256Algorithm, nil, pkey) == 1 else {
            throw .fromQueue(.verify, fallback: "EVP_DigestVerifyInit failed")
        }
        let status = der.withUnsafeBytes { signature in
            message.withUnsafeBytes { input in
                EVP_DigestVerify(
                    context, signature.bindMemory(to: UInt8.self).baseAddress, signature.count,
                    input.bindMemory(to: UInt8.self).baseAddress, input.count)
            }
        }
        // 1: valid; 0: a signature that does not verify; below 0: an error.
        guard status >= 0 else { throw .fromQueue(.verify, fallback: "EVP_DigestVerify failed") }
        ERR_clear_error()
        return status == 1
    }
}

/// SHA-256 from the default provider, fetched once. `EVP_sha256()` makes OpenSSL 3 look the
/// algorithm up again on every use (an "implicit fetch"), which cost more than hashing an
/// access token on every DPoP proof. A fetched `EVP_MD` is immutable and may be shared by
/// every thread (OpenSSL 3's threading rules), hence `nonisolated(unsafe)`; `nil` only if the
/// default provider has no SHA-256, and then the implicit fetch is used.
nonisolated(unsafe) let sha256Algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA2-256", nil) ?? EVP_sha256()

#endif
