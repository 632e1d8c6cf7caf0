import Foundation

/// Makes DPoP proofs (RFC 9449 §4.2) signed by one key.
///
/// ```swift
/// let builder = DPoPProofBuilder(key: try OpenSSLP256Key.generate())
/// let proof = try await builder.proof(method: .get, url: url, accessToken: token.accessToken)
/// request.setValue(proof.compactSerialization, forHTTPHeaderField: "DPoP")
/// request.setValue("DPoP \(token.accessToken)", forHTTPHeaderField: "Authorization")
/// ```
///
/// Each proof's header is `{"alg":"ES256","jwk":{…},"typ":"dpop+jwt"}` and its claims are
/// `jti` (128 random bits), `htm`, `htu` (see ``targetURI(for:)``), `iat` (whole seconds from
/// the builder's clock), `ath` (the base64url SHA-256 of the access token, when one is given)
/// and `nonce` (when given). The JSON has sorted keys and no whitespace; every part is base64url
/// without padding.
public struct DPoPProofBuilder: Sendable {
    /// The key that signs every proof.
    public let key: any DPoPKey

    private let now: @Sendable () -> Date

    /// A builder for `key`.
    ///
    /// - Parameters:
    ///   - key: The key that signs the proofs.
    ///   - now: The clock that gives each proof's `iat` (tests drive it).
    public init(key: any DPoPKey, now: @escaping @Sendable () -> Date = { Date() }) {
        self.key = key
        self.now = now
    }

    /// A new proof for one request.
    ///
    /// - Parameters:
    ///   - method: The request's method (`htm`), exactly as sent.
    ///   - url: The request's URL; `htu` is ``targetURI(for:)`` of it.
    ///   - accessToken: The access token the request carries in `Authorization: DPoP …`, if
    ///     any: its hash becomes `ath`. Leave it out for token requests.
    ///   - nonce: The nonce the server gave in its `DPoP-Nonce` header, if any.
    /// - Throws: ``DPoPError`` naming what failed; never the key, the token or the proof.
    public func proof(
        method: HTTPMethod, url: URL, accessToken: String? = nil, nonce: String? = nil
    ) async throws(DPoPError) -> DPoPProof {
        guard Self.isToken(method.rawValue) else { throw .invalidMethod }
        let htu = try Self.targetURI(for: url)
        let seconds = now().timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, seconds >= 0, seconds < 1e15 else { throw .invalidIssueTime }
        let ath = try accessToken.map { token throws(DPoPError) in try hash(Data(token.utf8)) }
        let claims = Claims(
            jti: Self.randomID(), htm: method.rawValue, htu: htu, iat: Int(seconds), ath: ath, nonce: nonce)
        let header = Header(jwk: key.publicJWK.members)
        let signingInput = Base64URL.encode(try Self.json(header)) + "." + Base64URL.encode(try Self.json(claims))
        let signature: Data
        do {
            signature = try await key.sign(Data(signingInput.utf8))
        } catch {
            throw .signingFailed(error)
        }
        guard signature.count == 64 else { throw .invalidSignature(byteCount: signature.count) }
        return DPoPProof(
            compactSerialization: signingInput + "." + Base64URL.encode(signature), id: claims.jti,
            issuedAt: Date(timeIntervalSince1970: seconds), method: method)
    }

    private func hash(_ data: Data) throws(DPoPError) -> String {
        let digest: Data
        do {
            digest = try key.sha256(data)
        } catch {
            throw .hashingFailed(error)
        }
        guard digest.count == 32 else { throw .invalidDigest(byteCount: digest.count) }
        return Base64URL.encode(digest)
    }

    /// 128 bits from the system's cryptographically secure generator, base64url (22 characters).
    private static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = Data(count: 16)
        for index in bytes.indices { bytes[index] = generator.next() }
        return Base64URL.encode(bytes)
    }

    /// Whether `method` is an RFC 9110 token: what a request line may carry as its method.
    private static func isToken(_ method: String) -> Bool {
        !method.isEmpty
            && method.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar)
                        || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
            }
    }

    private static func json(_ value: some Encodable) throws(DPoPError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw .encodingFailed(error)
        }
    }

    private struct Header: Encodable {
        let typ = "dpop+jwt"
        let alg = "ES256"
        let jwk: [String: String]
    }

    private struct Claims: Encodable {
        let jti: String
        let htm: String
        let htu: String
        let iat: Int
        let ath: String?
        let nonce: String?
    }
}

extension DPoPProofBuilder: CustomStringConvertible, CustomReflectable {
    /// The builder's name; never its key.
    public var description: String { "DPoPProofBuilder(key: <redacted>)" }

    /// What `dump(builder)` shows: never the key.
    public var customMirror: Mirror {
        Mirror(self, children: ["key": "<redacted>"], displayStyle: .struct)
    }
}
