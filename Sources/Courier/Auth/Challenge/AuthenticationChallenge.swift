import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One challenge of a `WWW-Authenticate` (or `Proxy-Authenticate`) header (RFC 9110 §11.6.1):
/// a scheme and its parameters, or a scheme and a token68.
///
/// A server may put several challenges in one header, of different schemes, and parameters
/// of the same name in each (`Bearer error="invalid_token", DPoP error="use_dpop_nonce",
/// algs="ES256"`): read each challenge on its own, by scheme, never by searching the raw text.
///
/// ```swift
/// let challenges = AuthenticationChallenge.parse(response.response?.value(forHTTPHeaderField: "WWW-Authenticate"))
/// if challenges.first(scheme: "DPoP")?["error"] == "use_dpop_nonce" { … }
/// ```
public struct AuthenticationChallenge: Sendable, Hashable {
    /// The scheme, as the server wrote it (`Bearer`, `DPoP`, `Basic`). Compare it with
    /// ``hasScheme(_:)``: schemes are case-insensitive.
    public let scheme: String

    /// The parameters, by name in lower case (names are case-insensitive); quoted values
    /// unquoted. A name given twice keeps its first value.
    public let parameters: [String: String]

    /// The token68 that follows the scheme instead of parameters (`Negotiate YII…`), if any.
    public let token68: String?

    /// A challenge.
    public init(scheme: String, parameters: [String: String] = [:], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = Dictionary(parameters.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        self.token68 = token68
    }

    /// The value of the parameter `name` (case-insensitive), if given.
    public subscript(name: String) -> String? { parameters[name.lowercased()] }

    /// Whether the challenge's scheme is `scheme`, ignoring case.
    public func hasScheme(_ scheme: String) -> Bool {
        self.scheme.caseInsensitiveCompare(scheme) == .orderedSame
    }

    /// At most this many bytes of a header value are read: a challenge is a few hundred bytes,
    /// and a hostile server's megabyte header must not cost more than that.
    public static let maximumHeaderLength = 16 * 1024

    /// At most this many challenges are read from one header value.
    public static let maximumChallengeCount = 32

    /// The challenges in a header value, in order. A value longer than
    /// ``maximumHeaderLength`` is read up to that length; what cannot be read as a challenge
    /// (stray commas, text that is not a token) is skipped, never guessed at.
    public static func parse(_ value: String?) -> [AuthenticationChallenge] {
        guard let value, !value.isEmpty else { return [] }
        var scanner = ChallengeScanner(Array(value.utf8.prefix(maximumHeaderLength)))
        return scanner.challenges(limit: maximumChallengeCount)
    }

    /// The challenges of every `WWW-Authenticate` header of a response (Foundation joins
    /// repeated headers with commas, which the grammar allows).
    public static func parse(wwwAuthenticateOf response: HTTPURLResponse?) -> [AuthenticationChallenge] {
        parse(response?.value(forHTTPHeaderField: "WWW-Authenticate"))
    }
}

extension Array where Element == AuthenticationChallenge {
    /// The first challenge of `scheme` (case-insensitive), if any.
    public func first(scheme: String) -> AuthenticationChallenge? {
        first { $0.hasScheme(scheme) }
    }
}

extension AuthenticationChallenge: CustomStringConvertible {
    /// The challenge as a header would carry it, parameters sorted by name. A token68 is
    /// shown by its length only: for some schemes (Negotiate) it is a credential.
    public var description: String {
        if let token68 { return "\(scheme) <\(token68.utf8.count) bytes>" }
        let parameters = parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }
        return parameters.isEmpty ? scheme : "\(scheme) " + parameters.joined(separator: ", ")
    }
}
