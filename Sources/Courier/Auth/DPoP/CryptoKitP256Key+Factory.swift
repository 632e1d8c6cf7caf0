#if canImport(CryptoKit)
    import CryptoKit
    import Foundation

    extension CryptoKitP256Key {
        /// Makes the keys of a DPoP session with CryptoKit: a new ``CryptoKitP256Key`` for each
        /// sign-in, kept in the session's store (the Keychain, with ``KeychainTokenStore``) as
        /// PKCS#8 DER beside its tokens, so an app and its extensions sign with the same key.
        ///
        /// ```swift
        /// let session = AuthSession(store: KeychainTokenStore(service: "api", accessGroup: group),
        ///                           refresh: refresh, dpop: CryptoKitP256Key.Factory())
        /// ```
        public struct Factory: DPoPKeyFactory {
            /// The factory.
            public init() {}

            /// A new random P-256 key.
            public func makeKey() async throws -> any DPoPKey {
                CryptoKitP256Key()
            }

            /// `key` as PKCS#8 DER.
            ///
            /// - Throws: ``DPoPError/unsupportedKey`` when `key` is not a ``CryptoKitP256Key``.
            public func exportKey(_ key: any DPoPKey) throws -> Data {
                guard let key = key as? CryptoKitP256Key else { throw DPoPError.unsupportedKey }
                return try key.pkcs8DERRepresentation
            }

            /// The key stored as PKCS#8 DER.
            public func importKey(_ data: Data) throws -> any DPoPKey {
                try CryptoKitP256Key(pkcs8DERRepresentation: data)
            }
        }
    }
#endif
