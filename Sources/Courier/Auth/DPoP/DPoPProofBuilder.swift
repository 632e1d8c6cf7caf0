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
    /// The header, base64url: the same for every proof of this key, so made once.
    private let encodedHeader: String

    /// A builder for `key`.
    ///
    /// - Parameters:
    ///   - key: The key that signs the proofs.
    ///   - now: The clock that gives each proof's `iat` (tests drive it).
    public init(key: any DPoPKey, now: @escaping @Sendable () -> Date = { Date() }) {
        self.key = key
        self.now = now
        self.encodedHeader = Base64URL.encode(Self.headerJSON(key.publicJWK).utf8)
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
        let jti = Self.randomID()
        let claims = Self.claimsJSON(
            jti: jti, htm: method.rawValue, htu: htu, iat: Int(seconds), ath: ath, nonce: nonce)
        let signingInput = encodedHeader + "." + Base64URL.encode(claims.utf8)
        let signature: Data
        do {
            signature = try await key.sign(Data(signingInput.utf8))
        } catch {
            throw .signingFailed(error)
        }
        guard signature.count == 64 else { throw .invalidSignature(byteCount: signature.count) }
        return DPoPProof(
            compactSerialization: signingInput + "." + Base64URL.encode(signature), id: jti,
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
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        let bytes =
            (0..<8).map { UInt8(truncatingIfNeeded: high >> ($0 * 8)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> ($0 * 8)) }
        return Base64URL.encode(bytes)
    }

    /// Whether `method` is an RFC 9110 token: what a request line may carry as its method.
    private static func isToken(_ method: String) -> Bool {
        !method.isEmpty
            && method.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
    }

    // The JSON is written by hand, keys sorted and no whitespace, as a JSONEncoder with
    // `.sortedKeys` and `.withoutEscapingSlashes` writes it: on Linux two encoder runs cost
    // far more than the signature, on every request.

    /// `{"alg":"ES256","jwk":{…},"typ":"dpop+jwt"}`: every value is a fixed name or base64url,
    /// so nothing needs escaping.
    private static func headerJSON(_ jwk: DPoPPublicJWK) -> String {
        #"{"alg":"ES256","jwk":{"crv":"\#(jwk.curve)","kty":"\#(jwk.keyType)","x":"\#(jwk.xBase64URL)","y":"\#(jwk.yBase64URL)"},"typ":"dpop+jwt"}"#
    }

    /// The claims, keys sorted: `ath`, `htm`, `htu`, `iat`, `jti`, `nonce`.
    private static func claimsJSON(jti: String, htm: String, htu: String, iat: Int, ath: String?, nonce: String?)
        -> String
    {
        var json = "{"
        if let ath { json += #""ath":"# + quoted(ath) + "," }
        json += #""htm":"# + quoted(htm) + #","htu":"# + quoted(htu) + #","iat":"# + String(iat)
        json += #","jti":"# + quoted(jti)
        if let nonce { json += #","nonce":"# + quoted(nonce) }
        return json + "}"
    }

    /// `text` as a JSON string: `"` and `\` escaped, control characters as `\u00XX`; `/` and
    /// everything else as it is.
    static func quoted(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return "\"" + text + "\"" }
        var json = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: json.unicodeScalars.append(scalar)
            }
        }
        return json + "\""
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
