import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A DPoP session's signing (RFC 9449): its key factory, the key its current token is bound to,
/// and the nonces servers gave. One per ``AuthSession`` made with `dpop:`; the
/// re-authentication stage, ``AuthPlugin`` and the pipeline (for token requests) ask it for
/// proofs.
package final class DPoPSigner: Sendable {
    /// A stored key longer than this is not one a factory made (PKCS#8 of a P-256 key is 138
    /// bytes; a key reference is smaller still): it is refused before it reaches the factory.
    package static let maximumStoredKeyLength = 16 * 1024

    /// Makes, exports and restores the session's keys.
    package let factory: any DPoPKeyFactory
    /// The nonce each origin gave last.
    package let nonces = DPoPNonces()

    /// The last key restored (as the builder of its proofs, which encodes the key's header
    /// once), with the stored bytes it came from: a request restores the token's key once, not
    /// once per proof. Guards the pair.
    private let restored = Locked<(data: Data, builder: DPoPProofBuilder)?>(nil)

    package init(factory: any DPoPKeyFactory) {
        self.factory = factory
    }

    /// Whether `token` is bound to a key: the server said so with `token_type: DPoP`. A
    /// server that does not support DPoP answers a proof with a bearer token (RFC 9449 §5),
    /// which is then sent as one.
    package static func isBound(_ token: OAuthToken) -> Bool {
        // ASCII, without Foundation's locale-aware comparison: asked of every bearer request.
        sameHeaderName(token.tokenType, "DPoP")
    }

    /// The proofs of the key `token` is bound to, restored from what the store keeps with it.
    ///
    /// - Throws: ``DPoPKeyLost`` when the token carries no key or the factory cannot restore it.
    package func builder(for token: OAuthToken) throws(DPoPKeyLost) -> DPoPProofBuilder {
        guard let data = token.dpopKey else { throw DPoPKeyLost(reason: .missing) }
        guard data.count <= Self.maximumStoredKeyLength else { throw DPoPKeyLost(reason: .unreadable(nil)) }
        if let cached = restored.withValue({ $0 }), cached.data == data { return cached.builder }
        let key: any DPoPKey
        do {
            key = try factory.importKey(data)
        } catch {
            throw DPoPKeyLost(reason: .unreadable(error))
        }
        let builder = DPoPProofBuilder(key: key)
        restored.withValue { $0 = (data, builder) }
        return builder
    }

    /// A new key and what the store keeps of it, for a new sign-in or a first token.
    package func newKey() async throws(CourierError) -> (builder: DPoPProofBuilder, data: Data) {
        do {
            let key = try await factory.makeKey()
            let data = try factory.exportKey(key)
            let builder = DPoPProofBuilder(key: key)
            restored.withValue { $0 = (data, builder) }
            return (builder, data)
        } catch {
            throw .underlying(DPoPError.keyUnavailable(error), nil)
        }
    }

    /// `request` signed for a resource server: `Authorization: DPoP <token>` and a proof with
    /// `ath` and `nonce` — by default the nonce its origin gave last; a retry after a
    /// `use_dpop_nonce` challenge passes the nonce of that challenge, so that with a server
    /// whose nonces are good for one proof each, it never carries another request's.
    package func signed(
        _ request: URLRequest, accessToken: String, builder: DPoPProofBuilder, nonce: String? = nil
    ) async throws(CourierError) -> URLRequest {
        let proof = try await self.proof(for: request, accessToken: accessToken, builder: builder, nonce: nonce)
        return Self.setting(["Authorization": "DPoP \(accessToken)", "DPoP": proof], on: request)
    }

    /// `request` with `headers` set, replacing any of the same names (case-insensitively).
    ///
    /// Through `allHTTPHeaderFields`, not `setValue(_:forHTTPHeaderField:)`, which on Linux
    /// walks a value Character by Character to check it: for a 600-byte proof, more time than
    /// the rest of a request. Nothing is lost: a proof is base64url and dots, the token was
    /// checked for CR, LF and NUL (``AuthPlugin``), and ``RequestValidation`` checks every
    /// header again before the request is sent.
    static func setting(_ headers: [String: String], on request: URLRequest) -> URLRequest {
        var request = request
        var fields = request.allHTTPHeaderFields ?? [:]
        for name in headers.keys {
            for existing in fields.keys where Self.sameHeaderName(existing, name) {
                fields.removeValue(forKey: existing)
            }
        }
        fields.merge(headers) { _, new in new }
        request.allHTTPHeaderFields = fields
        return request
    }

    /// `request` with a fresh proof in its `DPoP` header (replacing any), signed by `key`, with
    /// `nonce` (by default the one its origin gave last).
    package func withProof(
        _ request: URLRequest, accessToken: String?, builder: DPoPProofBuilder, nonce: String? = nil
    ) async throws(CourierError) -> URLRequest {
        let proof = try await self.proof(for: request, accessToken: accessToken, builder: builder, nonce: nonce)
        return Self.setting(["DPoP": proof], on: request)
    }

    /// The request of a same-origin redirect hop with a proof of its own (its URL, its method
    /// after a 303, a new `jti`, and the nonce the 3xx gave, else the origin's last): what a
    /// transport's ``TransportRequest/redirectSigner`` calls. `accessToken`: the token the
    /// request carries as `Authorization: DPoP` (`nil` for a token request). A hop that no
    /// longer carries the proof (the redirect chain went through another origin, which dropped
    /// it with the credential) is sent as it is; `nil` when no proof can be made (the 3xx is
    /// then the answer, rather than a request the server would refuse).
    package func redirected(
        _ next: URLRequest, after redirect: HTTPURLResponse, accessToken: String?, builder: DPoPProofBuilder
    ) async -> URLRequest? {
        // The 3xx's nonce goes to this hop only (not kept for the origin, where a concurrent
        // request could take it first); the final answer's nonce is kept as every answer's is.
        let given = DPoPNonces.nonce(in: redirect)
        guard next.value(forHTTPHeaderField: "DPoP") != nil else { return next }
        do {
            if let accessToken {
                return try await signed(next, accessToken: accessToken, builder: builder, nonce: given)
            }
            return try await withProof(next, accessToken: nil, builder: builder, nonce: given)
        } catch {
            return nil
        }
    }

    /// A fresh proof for `request`, signed by `key`, with `nonce`, or else the nonce its origin
    /// gave last.
    private func proof(for request: URLRequest, accessToken: String?, builder: DPoPProofBuilder, nonce: String?)
        async throws(CourierError) -> String
    {
        guard let url = request.url else {
            throw .underlying(DPoPError.unsupportedURL("the request has no URL"), nil)
        }
        let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        let proof: DPoPProof
        do {
            proof = try await builder.proof(
                method: method, url: url, accessToken: accessToken, nonce: nonce ?? nonces.nonce(for: url))
        } catch {
            throw .underlying(error, nil)
        }
        return proof.compactSerialization
    }

    /// Whether two header names are the same, ignoring ASCII case (header names are ASCII
    /// tokens); without Foundation's locale-aware comparison, which costs microseconds on Linux.
    static func sameHeaderName(_ first: String, _ second: String) -> Bool {
        first.utf8.count == second.utf8.count
            && zip(first.utf8, second.utf8).allSatisfy { pair in
                pair.0 == pair.1
                    || (pair.0 | 0x20 == pair.1 | 0x20 && (pair.0 | 0x20) >= 0x61 && (pair.0 | 0x20) <= 0x7A)
            }
    }

    /// Keeps the nonce `result`'s response gave (any response: a server may rotate it on a
    /// success), and returns the nonce to send the request again with when the response is a
    /// `use_dpop_nonce` challenge; `nil` otherwise.
    ///
    /// The retry signs with that nonce — its own challenge's — and not with the origin's
    /// latest, which a concurrent request may have replaced with its own challenge's nonce
    /// (a server whose nonces are good for one proof each would then refuse one of the two).
    ///
    /// A challenge's nonce is not kept for the origin until its retry has gone out
    /// (``observe(_:answering:)``): kept at once, a concurrent request could take it for its
    /// own proof first, and a server whose nonces are good for one proof each would refuse the
    /// retry.
    package func observe(_ result: Result<Response, CourierError>) -> String? {
        guard let (http, url, body) = Self.answer(result) else { return nil }
        if let challenge = DPoPNonceChallenge.nonce(in: http, body: body) { return challenge }
        nonces.update(from: http, for: url)
        return nil
    }

    /// Keeps the nonce of `result`, the answer to the retry that carried `nonce` (the
    /// challenge's), or else `nonce` itself: the origin's nonce from now on.
    package func observe(_ result: Result<Response, CourierError>, answering nonce: String) {
        guard let (http, url, _) = Self.answer(result) else { return }
        if nonces.update(from: http, for: url) == nil { nonces.keep(nonce, for: url) }
    }

    /// Keeps the nonce of `result`'s response, a challenge's too: for a request that is not
    /// sent again here (a plain ``Provider``'s, signed by ``AuthPlugin``), the next one to the
    /// origin carries it.
    package func remember(_ result: Result<Response, CourierError>) {
        guard let (http, url, _) = Self.answer(result) else { return }
        nonces.update(from: http, for: url)
    }

    /// The HTTP response in `result`, the URL whose origin gave it, and its body.
    private static func answer(_ result: Result<Response, CourierError>) -> (HTTPURLResponse, URL, Data)? {
        let response: Response
        switch result {
        case .success(let value): response = value
        case .failure(.statusCode(let value)): response = value
        case .failure: return nil
        }
        guard let http = response.response, let url = response.request?.url ?? http.url else { return nil }
        return (http, url, response.data)
    }
}

/// The key a DPoP session's tokens are bound to is lost: the token carries none (a store
/// written by an older version, or edited), or the session's ``DPoPKeyFactory`` cannot restore
/// it (a device that no longer has the key). The tokens are useless without it; the session
/// ends (``SessionExpiry/Cause/dpopKeyLost``) and the next sign-in gets a new key.
package struct DPoPKeyLost: Error {
    package enum Reason {
        case missing
        case unreadable((any Error)?)
        /// The session has no key factory at all (a bearer session): the key is not lost.
        case noFactory
    }

    package let reason: Reason

    /// A bearer session cannot sign with the token's key.
    package static let noFactory = DPoPKeyLost(reason: .noFactory)

    /// Whether this is ``noFactory``.
    package var isNoFactory: Bool {
        if case .noFactory = reason { return true }
        return false
    }
}

/// The DPoP key that signs the token requests sent from the current task: set by a DPoP
/// session around its refresh and acquire closures and its sign-in helper, read by the
/// pipeline just before a request goes out, so that the app's token request carries a proof
/// with no code of the app's.
package enum DPoPTokenRequest {
    /// The session's signer and the proofs of the key its token requests are signed with.
    package struct Signing: Sendable {
        package let signer: DPoPSigner
        package let builder: DPoPProofBuilder
    }

    /// The signing of the token requests sent from this task; `nil` outside a DPoP session's
    /// refresh, acquire or sign-in.
    @TaskLocal package static var current: Signing?
}
