import Foundation

/// Makes, exports and restores the keys of a DPoP session (RFC 9449): what
/// ``AuthSession`` needs to give each sign-in a new key and to keep that key with its tokens,
/// in the session's store, for every process that shares it.
///
/// Use the factory for your platform — `CryptoKitP256Key.Factory` on Apple platforms,
/// `OpenSSLP256Key.Factory` (product `CourierOpenSSL`, trait `OpenSSLSigning`) on Linux — or
/// write one for keys of your own (a hardware token, the Secure Enclave): ``exportKey(_:)``
/// then returns whatever lets ``importKey(_:)`` find the same key again (a key reference, a
/// wrapped blob), not necessarily the private key itself.
///
/// ```swift
/// let session = AuthSession(
///     store: FileTokenStore(url: tokenFile),
///     refresh: { token in try await auth.refresh(token) },
///     dpop: OpenSSLP256Key.Factory())
/// ```
public protocol DPoPKeyFactory: Sendable {
    /// A new key, for a new sign-in (or a first token from the session's `acquire` closure).
    func makeKey() async throws -> any DPoPKey

    /// What the store keeps of `key` (``OAuthToken/dpopKey``), so that ``importKey(_:)``
    /// restores it in this process or another. `key` is one this factory made or imported.
    func exportKey(_ key: any DPoPKey) throws -> Data

    /// The key that ``exportKey(_:)`` gave `data` for. Throws when `data` is not one (a store
    /// edited by hand, a key the device no longer has): the session then ends, since tokens
    /// bound to a lost key are useless, and the next sign-in gets a new key.
    func importKey(_ data: Data) throws -> any DPoPKey
}
