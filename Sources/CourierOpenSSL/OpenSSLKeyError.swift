// Compiled only with the OpenSSLSigning trait (see Package.swift); empty without it.
#if OpenSSLSigning

import COpenSSL

/// Why an ``OpenSSLP256Key`` operation failed: which operation, and OpenSSL's reason.
///
/// The reason is OpenSSL's error text (such as `error:1E08010C:DECODER routines::unsupported`)
/// or Courier's own sentence; it never contains key material.
public struct OpenSSLKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operation that failed.
    public enum Operation: String, Sendable {
        /// Generating a new P-256 key.
        case generateKey = "generating a P-256 key"
        /// Reading a private key from PKCS#8 DER.
        case importKey = "reading a PKCS#8 private key"
        /// Writing the private key as PKCS#8 DER.
        case exportKey = "writing the private key as PKCS#8"
        /// Reading the public key's coordinates.
        case readPublicKey = "reading the public key"
        /// Signing with ES256.
        case sign = "signing with ES256"
        /// Verifying an ES256 signature.
        case verify = "verifying an ES256 signature"
        /// Computing a SHA-256 digest.
        case digest = "computing SHA-256"
    }

    /// The operation that failed.
    public let operation: Operation

    /// OpenSSL's reason, or Courier's when OpenSSL gave none.
    public let reason: String

    /// "OpenSSL: <operation> failed: <reason>".
    public var description: String { "OpenSSL: \(operation.rawValue) failed: \(reason)" }

    /// An error for `operation` whose reason is OpenSSL's error queue on this thread (emptied),
    /// or `fallback` when the queue is empty.
    static func fromQueue(_ operation: Operation, fallback: String) -> OpenSSLKeyError {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return OpenSSLKeyError(
            operation: operation, reason: reasons.isEmpty ? fallback : reasons.joined(separator: "; "))
    }
}

#endif
