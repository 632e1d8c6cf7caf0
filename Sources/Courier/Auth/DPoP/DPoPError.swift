import Foundation

/// Why a DPoP proof or a key's thumbprint could not be made.
///
/// Descriptions name what failed; they never contain a key, a proof or an access token.
public enum DPoPError: Error, Sendable {
    /// The request URL cannot be a proof's `htu`: it is not an absolute `http` or `https` URL
    /// with a host. The associated text says which part is wrong (not the URL itself).
    case unsupportedURL(String)

    /// The HTTP method is empty or not a token (RFC 9110 §5.6.2).
    case invalidMethod

    /// The clock gave a time that cannot be written as `iat` (not finite, or before 1970).
    case invalidIssueTime

    /// Public key coordinates that are not 32 bytes each.
    case invalidPublicKey

    /// The key's ``DPoPKey/sign(_:)`` threw.
    case signingFailed(any Error)

    /// The key returned a signature that is not the 64-byte raw `r || s` ES256 asks for
    /// (a DER signature, typically 70–72 bytes, is the usual mistake).
    case invalidSignature(byteCount: Int)

    /// The key's ``DPoPKey/sha256(_:)`` threw.
    case hashingFailed(any Error)

    /// The key's ``DPoPKey/sha256(_:)`` returned something other than 32 bytes.
    case invalidDigest(byteCount: Int)
    /// The proof's header or claims could not be encoded as JSON.
    case encodingFailed(any Error)

    /// A ``DPoPKeyFactory`` was handed a key of a type it does not make.
    case unsupportedKey

    /// The session's ``DPoPKeyFactory`` could not make a new key, or export it to store it with
    /// the token: the sign-in (or first token) is not attempted.
    case keyUnavailable(any Error)

    /// A DPoP session was given a DPoP-bound token (`token_type: DPoP`) without its key
    /// (``OAuthToken/dpopKey``), or with one the session's factory cannot restore: sign in with
    /// ``AuthSession/signIn(with:)``, which binds the token to a new key.
    case tokenNotBound

}

extension DPoPError: CustomStringConvertible {
    /// What went wrong; the text of an underlying error passes through ``Redaction/default``.
    public var description: String {
        switch self {
        case .unsupportedURL(let reason):
            return "DPoP: the request URL cannot be a proof's htu: \(reason)"
        case .invalidMethod:
            return "DPoP: the request method is not a valid HTTP method name"
        case .invalidIssueTime:
            return "DPoP: the clock gave a time that cannot be a proof's iat"
        case .invalidPublicKey:
            return "DPoP: a P-256 public key needs 32-byte x and y coordinates"
        case .signingFailed(let error):
            return "DPoP: the key could not sign the proof: \(Self.quote(error))"
        case .invalidSignature(let count):
            return "DPoP: the key returned a \(count)-byte signature; ES256 needs the 64-byte r || s form, not DER"
        case .hashingFailed(let error):
            return "DPoP: the key could not compute SHA-256: \(Self.quote(error))"
        case .invalidDigest(let count):
            return "DPoP: the key returned a \(count)-byte SHA-256 digest; expected 32"
        case .encodingFailed(let error):
            return "DPoP: the proof's JSON could not be encoded: \(Self.quote(error))"
        case .unsupportedKey:
            return "DPoP: the key factory was handed a key of a type it does not make"
        case .keyUnavailable(let error as DPoPKeyFactoryMissing):
            return error.description
        case .keyUnavailable(let error):
            return "DPoP: the key factory could not make or export a new key: \(Self.quote(error))"
        case .tokenNotBound:
            return
                "DPoP: the token is DPoP-bound but carries no key the session can restore; sign in with AuthSession.signIn { … }, which binds it to a new key"
        }
    }

    private static func quote(_ error: any Error) -> String {
        Redaction.default.redact(text: String(describing: error))
    }
}

extension DPoPError {
    /// The session was made without a key factory (no `dpop:`), but its token is DPoP-bound
    /// (`token_type: DPoP`; another process sharing the store signed in with DPoP, say): a
    /// request signed with it would carry no proof, and the server would refuse it. Nothing is
    /// sent and nothing is refreshed; give the session the key factory the other processes use
    /// (`AuthSession(…, dpop: …)`).
    ///
    /// It is ``keyUnavailable(_:)`` carrying a ``DPoPKeyFactoryMissing`` (a new case would
    /// break an exhaustive `switch` written for 1.6.0); test for it with ``isKeyFactoryMissing``.
    public static var keyFactoryMissing: DPoPError { .keyUnavailable(DPoPKeyFactoryMissing()) }

    /// Whether this is ``keyFactoryMissing``: the token needs a key factory the session lacks.
    public var isKeyFactoryMissing: Bool {
        if case .keyUnavailable(let error) = self { return error is DPoPKeyFactoryMissing }
        return false
    }
}

/// Why a session without a key factory cannot sign with a DPoP-bound token: the error
/// ``DPoPError/keyFactoryMissing`` carries.
public struct DPoPKeyFactoryMissing: Error, Sendable, Equatable, CustomStringConvertible {
    /// Makes the error; ``DPoPError/keyFactoryMissing`` is how Courier reports it.
    public init() {}

    /// What to do: give the session the key factory the process that stored the token uses.
    public var description: String {
        "DPoP: the token is DPoP-bound but the session has no key factory to sign proofs with; make the AuthSession with dpop: (the factory the process that stored the token uses)"
    }
}
