#if canImport(CryptoKit)
    import CryptoKit
    import Foundation

    /// A ``DPoPKey`` on Apple platforms: a P-256 key in memory, signed with CryptoKit.
    ///
    /// ```swift
    /// let key = CryptoKitP256Key()
    /// let saved = try key.pkcs8DERRepresentation   // store it with the session's token, in the Keychain
    /// let restored = try CryptoKitP256Key(pkcs8DERRepresentation: saved)
    /// ```
    ///
    /// Its `description` and `dump()` show only the public key's type.
    public struct CryptoKitP256Key: DPoPKey {
        // The private key is kept as its 32-byte scalar (a `Sendable` value) and rebuilt for each
        // signature, so this type's sendability does not depend on CryptoKit's annotations.
        private let rawPrivateKey: Data

        /// The public half of the key.
        public let publicJWK: DPoPPublicJWK

        /// A new random key.
        public init() {
            self.init(P256.Signing.PrivateKey())
        }

        /// The key stored as PKCS#8 DER (``pkcs8DERRepresentation``, or OpenSSL's export).
        public init(pkcs8DERRepresentation: Data) throws {
            self.init(try P256.Signing.PrivateKey(derRepresentation: pkcs8DERRepresentation))
        }

        /// The key from its 32-byte private scalar `d`.
        public init(rawRepresentation: Data) throws {
            self.init(try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation))
        }

        private init(_ key: P256.Signing.PrivateKey) {
            rawPrivateKey = key.rawRepresentation
            // CryptoKit's raw public key is x || y, 32 bytes each: read as coordinates directly,
            // with no check that could fail.
            let point = key.publicKey.rawRepresentation
            publicJWK = DPoPPublicJWK(unchecked: Data(point.prefix(32)), Data(point.suffix(32)))
        }

        /// The private key as PKCS#8 DER, to store it. A secret: keep it in the Keychain.
        ///
        /// - Throws: CryptoKit's error if the stored scalar could not be read back as a key
        ///   (it came from a valid key, so this is not expected).
        public var pkcs8DERRepresentation: Data {
            get throws { try P256.Signing.PrivateKey(rawRepresentation: rawPrivateKey).derRepresentation }
        }

        /// Signs with ES256; returns the 64-byte `r || s` signature.
        public func sign(_ signingInput: Data) throws -> Data {
            let key = try P256.Signing.PrivateKey(rawRepresentation: rawPrivateKey)
            return try key.signature(for: signingInput).rawRepresentation
        }

        /// The SHA-256 digest of `data`.
        public func sha256(_ data: Data) -> Data {
            Data(SHA256.hash(data: data))
        }
    }

    extension CryptoKitP256Key: CustomStringConvertible, CustomReflectable {
        /// The key's type; never the key.
        public var description: String { "CryptoKitP256Key(<redacted>)" }

        /// What `dump(key)` shows: never the key.
        public var customMirror: Mirror {
            Mirror(self, children: ["privateKey": "<redacted>", "publicJWK": publicJWK], displayStyle: .struct)
        }
    }
#endif
