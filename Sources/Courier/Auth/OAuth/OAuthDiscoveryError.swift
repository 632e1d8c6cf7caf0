import Foundation

/// Why discovering an authorization server or a protected resource failed. Each case says
/// which document was asked for and what was wrong with the answer; none carries a credential
/// (metadata holds none, and URLs are shown redacted).
public enum OAuthDiscoveryError: Error, Sendable {
    /// A URL that would have been used (`what`: "issuer", "token_endpoint", …) is neither
    /// `https` nor `http` on loopback.
    case insecureURL(URL, what: String)
    /// An issuer identifier that RFC 8414 §2 does not allow: a query, a fragment, no host.
    case invalidIssuer(URL, reason: String)
    /// The metadata fetched for `expected` names another issuer (RFC 8414 §3.3): it is refused,
    /// or one server could pose as another.
    case issuerMismatch(expected: URL, found: URL, metadataURL: URL)
    /// The protected resource metadata names a resource that is not the one asked about
    /// (RFC 9728 §3.3).
    case resourceMismatch(expected: URL, found: URL, metadataURL: URL)
    /// No metadata document answered: every URL tried gave this status (404 when the server
    /// publishes none).
    case metadataNotFound(tried: [URL], statusCode: Int)
    /// The request for `url` failed before an answer came (network, time-out).
    case requestFailed(URL, CourierError)
    /// The answer from `url` is not a metadata document: not JSON, a required field missing,
    /// or too large.
    case unreadableMetadata(URL, reason: String)
    /// The response is not a `401`/`403` whose `WWW-Authenticate` names `resource_metadata`
    /// (RFC 9728 §5.1), so there is nothing to follow.
    case noResourceMetadataChallenge(statusCode: Int, url: URL?)
    /// The protected resource names no authorization server.
    case noAuthorizationServer(resource: URL)
}

extension OAuthDiscoveryError: CustomStringConvertible {
    /// What failed and why, for a log or an alert; URLs redacted.
    public var description: String {
        let redaction = Redaction.default
        func show(_ url: URL) -> String { redaction.redact(url: url) }
        switch self {
        case .insecureURL(let url, let what):
            return "OAuth discovery refused the \(what) \(show(url)): it must be https (plain http only on loopback)"
        case .invalidIssuer(let url, let reason):
            return "OAuth discovery refused the issuer \(show(url)): \(reason)"
        case .issuerMismatch(let expected, let found, let metadataURL):
            return "OAuth discovery refused the metadata at \(show(metadataURL)): it names the issuer \(show(found)), "
                + "not \(show(expected)), the one it was fetched for (RFC 8414 §3.3)"
        case .resourceMismatch(let expected, let found, let metadataURL):
            return "OAuth discovery refused the protected resource metadata at \(show(metadataURL)): "
                + "it describes \(show(found)), not \(show(expected)) (RFC 9728 §3.3)"
        case .metadataNotFound(let tried, let statusCode):
            let urls = tried.map(show).joined(separator: ", ")
            return "OAuth discovery found no metadata: GET \(urls) answered \(statusCode)"
        case .requestFailed(let url, let error):
            return "OAuth discovery could not fetch \(show(url)): "
                + ErrorText.describe(error, redaction: redaction)
        case .unreadableMetadata(let url, let reason):
            return "OAuth discovery could not read the metadata at \(show(url)): \(reason)"
        case .noResourceMetadataChallenge(let statusCode, let url):
            let request = url.map { " from \(show($0))" } ?? ""
            return "OAuth discovery found no resource_metadata in the \(statusCode) answer\(request): "
                + "it needs a 401 or 403 whose WWW-Authenticate names resource_metadata (RFC 9728 §5.1)"
        case .noAuthorizationServer(let resource):
            return "OAuth discovery found no authorization server for \(show(resource)): "
                + "its metadata lists none in authorization_servers"
        }
    }
}
