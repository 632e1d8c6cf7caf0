import Foundation

/// A signed DPoP proof (RFC 9449 §4): the compact JWT a request carries in its `DPoP` header.
///
/// A proof is a credential: whoever holds it can replay it for its method and URL until the
/// server's freshness window closes. Its `description` and `dump()` never show it; send
/// ``compactSerialization`` as the header value and nowhere else.
public struct DPoPProof: Sendable, Hashable {
    /// The proof as a compact JWS, `header.claims.signature`, each part base64url: the value of
    /// the request's `DPoP` header.
    public let compactSerialization: String

    /// The proof's unique identifier (its `jti` claim).
    public let id: String

    /// When the proof was made (its `iat` claim, whole seconds).
    public let issuedAt: Date

    /// The request method the proof is for (its `htm` claim).
    public let method: HTTPMethod

    /// A proof made of its parts; ``DPoPProofBuilder`` makes them.
    init(compactSerialization: String, id: String, issuedAt: Date, method: HTTPMethod) {
        self.compactSerialization = compactSerialization
        self.id = id
        self.issuedAt = issuedAt
        self.method = method
    }
}

extension DPoPProof: CustomStringConvertible, CustomReflectable {
    /// The method and issue time; never the proof.
    public var description: String {
        "DPoPProof(htm: \(method.rawValue), iat: \(Int(issuedAt.timeIntervalSince1970)), <redacted>)"
    }

    /// What `dump(proof)` and debuggers show: the method and issue time, never the proof or its id.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "compactSerialization": "<redacted>",
                "id": "<redacted>",
                "issuedAt": Int(issuedAt.timeIntervalSince1970),
                "method": method.rawValue,
            ],
            displayStyle: .struct)
    }
}
