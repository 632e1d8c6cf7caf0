import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server's request for a DPoP nonce (RFC 9449 §8 and §9): the request is sent again, once,
/// with the nonce it gave. It is not a rejected token — never a refresh, never a logout, and
/// safe to resend even for a POST, because the server refused the request before acting on it.
package enum DPoPNonceChallenge {
    /// The nonce `response` asks the next proof to carry, when it is a `use_dpop_nonce`
    /// challenge: a resource server's 401 with `WWW-Authenticate: DPoP error="use_dpop_nonce"`
    /// (beside other schemes' challenges or not), or an authorization server's 400 whose JSON
    /// body has `"error": "use_dpop_nonce"`, each with a valid `DPoP-Nonce` header. `nil` for
    /// anything else, including a challenge without a usable nonce (then there is nothing to
    /// retry with).
    package static func nonce(in response: HTTPURLResponse?, body: Data) -> String? {
        guard let response, let nonce = response.value(forHTTPHeaderField: "DPoP-Nonce"),
            DPoPNonces.isValidNonce(nonce)
        else { return nil }
        switch response.statusCode {
        case 401:
            let dpop = AuthenticationChallenge.parse(wwwAuthenticateOf: response).first(scheme: "DPoP")
            return dpop?["error"] == "use_dpop_nonce" ? nonce : nil
        case 400:
            return oauthError(in: body) == "use_dpop_nonce" ? nonce : nil
        default:
            return nil
        }
    }

    /// The `error` member of a small JSON object body, if it is one.
    private static func oauthError(in body: Data) -> String? {
        guard body.count <= 64 * 1024,
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return nil }
        return object["error"] as? String
    }
}
