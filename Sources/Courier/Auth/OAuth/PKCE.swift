import Foundation

/// A PKCE pair (RFC 7636), `S256` only: a fresh secret verifier and its challenge.
struct PKCE: Sendable {
    /// The secret sent only to the token endpoint: 43 characters of base64url from 32 random
    /// bytes (RFC 7636 §4.1, §7.1). Redacted wherever a refresh token is.
    let verifier: String

    /// `base64url(SHA256(verifier))`, sent with the authorization request.
    var challenge: String { Base64URL.encode(PKCESHA256.hash(Array(verifier.utf8))) }

    /// The method, always `S256`: `plain` would hand the verifier to the authorization request.
    static let method = "S256"

    /// A new pair from the system's secure random generator.
    static func generate() -> PKCE {
        PKCE(verifier: OAuthRandom.token(byteCount: 32))
    }
}

/// Unguessable values for `state` and PKCE.
enum OAuthRandom {
    /// base64url of `byteCount` bytes from `SystemRandomNumberGenerator` (the system's CSPRNG).
    static func token(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
