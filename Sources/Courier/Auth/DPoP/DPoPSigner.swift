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
        token.tokenType.caseInsensitiveCompare("DPoP") == .orderedSame
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
    /// `ath` and the nonce its origin gave.
    package func signed(_ request: URLRequest, accessToken: String, builder: DPoPProofBuilder)
        async throws(CourierError) -> URLRequest
    {
        let proof = try await self.proof(for: request, accessToken: accessToken, builder: builder)
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

    /// `request` with a fresh proof in its `DPoP` header (replacing any), signed by `key`.
    package func withProof(_ request: URLRequest, accessToken: String?, builder: DPoPProofBuilder)
        async throws(CourierError) -> URLRequest
    {
        let proof = try await self.proof(for: request, accessToken: accessToken, builder: builder)
        return Self.setting(["DPoP": proof], on: request)
    }

    /// A fresh proof for `request`, signed by `key`, with the nonce its origin gave.
    private func proof(for request: URLRequest, accessToken: String?, builder: DPoPProofBuilder)
        async throws(CourierError) -> String
    {
        guard let url = request.url else {
            throw .underlying(DPoPError.unsupportedURL("the request has no URL"), nil)
        }
        let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        let proof: DPoPProof
        do {
            proof = try await builder.proof(
                method: method, url: url, accessToken: accessToken, nonce: nonces.nonce(for: url))
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
    /// success), and says whether the response is a `use_dpop_nonce` challenge with a nonce to
    /// send the request again with.
    package func observe(_ result: Result<Response, CourierError>) -> Bool {
        let response: Response
        switch result {
        case .success(let value): response = value
        case .failure(.statusCode(let value)): response = value
        case .failure: return false
        }
        guard let http = response.response, let url = response.request?.url ?? http.url else { return false }
        nonces.update(from: http, for: url)
        return DPoPNonceChallenge.nonce(in: http, body: response.data) != nil
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
    }

    package let reason: Reason
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
