// Compiled only with the OpenSSLSigning trait (see Package.swift); empty without it.
#if OpenSSLSigning

import Courier
import Foundation

extension OpenSSLP256Key {
    /// Makes the keys of a DPoP session on OpenSSL: a new ``OpenSSLP256Key`` for each sign-in,
    /// kept in the session's store as PKCS#8 DER beside its tokens.
    ///
    /// ```swift
    /// let session = AuthSession(store: FileTokenStore(url: tokenFile), refresh: refresh,
    ///                           dpop: OpenSSLP256Key.Factory())
    /// ```
    public struct Factory: DPoPKeyFactory {
        /// The factory.
        public init() {}

        /// A new random P-256 key.
        public func makeKey() async throws -> any DPoPKey {
            try OpenSSLP256Key.generate()
        }

        /// `key` as PKCS#8 DER.
        ///
        /// - Throws: ``OpenSSLKeyError`` when `key` is not an ``OpenSSLP256Key`` (`.exportKey`),
        ///   or OpenSSL's error.
        public func exportKey(_ key: any DPoPKey) throws -> Data {
            guard let key = key as? OpenSSLP256Key else {
                throw OpenSSLKeyError(operation: .exportKey, reason: "the key is not an OpenSSLP256Key")
            }
            return try key.pkcs8DERRepresentation()
        }

        /// The key stored as PKCS#8 DER.
        ///
        /// - Throws: ``OpenSSLKeyError`` (`.importKey`) when `data` is not a P-256 private key.
        public func importKey(_ data: Data) throws -> any DPoPKey {
            try OpenSSLP256Key(pkcs8DERRepresentation: data)
        }
    }
}

#endif
