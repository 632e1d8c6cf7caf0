import Foundation

/// The rules Courier's transports follow when a redirect leaves the origin a request was
/// meant for.
///
/// `URLSessionTransport` and the libcurl transport both apply them, and so does
/// ``RefreshableProvider`` when it decides whether a 401 came from the origin that received
/// the token. A custom ``HTTPTransport`` that follows redirects itself should apply them too:
///
/// ```swift
/// if CrossOriginRedirect.isCrossOrigin(from: currentURL, to: location) {
///     headers = headers.filter { !CrossOriginRedirect.dropsHeader(named: $0.key) }
/// }
/// ```
public enum CrossOriginRedirect {
    /// The headers that always belong to one origin: the caller's credential
    /// (`Authorization`, and the `DPoP` proof that goes with a sender-constrained token), the proxy's (`Proxy-Authorization`: a proxy on the new path could
    /// read them), the session's (`Cookie`; cookies the new origin may see come from a
    /// cookie store, not from this header), and the W3C trace context (`traceparent`,
    /// `tracestate`, `baggage`), which tells another origin which trace, and which user's
    /// request, it is part of.
    public static let originBoundHeaders: Set<String> = [
        "Authorization", "DPoP", "Proxy-Authorization", "Cookie", "traceparent", "tracestate", "baggage",
    ]

    /// Whether going from `from` to `to` changes the scheme, the host or the port (a missing
    /// port counts as the scheme's default, so `http://a` and `http://a:80` are one origin).
    /// A missing URL counts as another origin.
    public static func isCrossOrigin(from: URL?, to: URL?) -> Bool {
        guard let from, let to else { return true }
        return from.scheme?.lowercased() != to.scheme?.lowercased()
            || from.host?.lowercased() != to.host?.lowercased()
            || effectivePort(from) != effectivePort(to)
    }

    /// Whether the header `name` is dropped on a redirect to another origin: one of
    /// ``originBoundHeaders``, or any header whose name says it carries a credential as
    /// ``Redaction/default`` reads names (`X-Api-Key`, `X-Auth-Token`, `X-Session-Id`, …),
    /// since a credential the caller gave for one origin must not reach another.
    public static func dropsHeader(named name: String) -> Bool {
        originBoundHeaderNames.contains(name.lowercased()) || Redaction.default.isSecret(header: name)
    }

    private static let originBoundHeaderNames = Set(originBoundHeaders.map { $0.lowercased() })

    private static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
