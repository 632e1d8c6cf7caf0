import Foundation

/// One authorization request (RFC 6749 §4.1.1 with PKCE): the URL to open in the person's
/// browser, and what the answer must match. Made by ``OAuthClient/authorizationRequest(redirectURI:scopes:resources:additionalParameters:)``,
/// used once by ``OAuthClient/exchange(callback:for:)``.
///
/// Its PKCE verifier is kept inside and never shown: not in ``description``, not in `dump()`.
public struct AuthorizationRequest: Sendable {
    /// The authorization endpoint's URL with every parameter: open it in a browser
    /// (`ASWebAuthenticationSession` on Apple platforms, the system browser elsewhere).
    public let url: URL
    /// The `state` sent; the callback must carry the same.
    public let state: String
    /// The `redirect_uri` sent; the callback must arrive there, and the token request repeats it.
    public let redirectURI: URL
    /// The resource indicators sent (RFC 8707); the token request repeats them.
    public let resources: [URL]
    /// The scopes asked for.
    public let scopes: [String]
    /// The PKCE pair; its verifier goes to the token endpoint only.
    let pkce: PKCE
}

extension AuthorizationRequest: CustomStringConvertible, CustomReflectable {
    /// The endpoint and redirect, without the verifier.
    public var description: String {
        "AuthorizationRequest(to \(OAuthError.withoutQuery(url, redaction: .default)), "
            + "redirect_uri \(redirectURI.absoluteString), scopes \(scopes))"
    }
    /// Everything but the PKCE verifier.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "url": url, "state": state, "redirectURI": redirectURI, "resources": resources, "scopes": scopes,
            ],
            displayStyle: .struct)
    }
}
