import Foundation

/// A proxy that would not open a tunnel (`CONNECT`) to the server, as libcurl (under both
/// transports on Linux) reports it, and the `URLError` code that says so.
///
/// libcurl reports it as a failed receive ("CONNECT tunnel failed, response 407"), which
/// reads as a lost connection; the proxy did answer, and refused. A 407 (or a 401, which some
/// proxies send instead) asks for proxy credentials: `URLError(.userAuthenticationRequired)`,
/// the code Apple uses when a resource needs credentials the request did not give. Any other
/// refusal (403, 502…) is `URLError(.cannotConnectToHost)`: the server could not be reached
/// through the proxy.
package struct ProxyRefusal: Sendable, Equatable {
    /// The status the proxy answered the `CONNECT` with.
    package let status: Int

    /// A refusal with `status`; `nil` for a 2xx (the tunnel was opened) or no status.
    package init?(status: Int) {
        guard status >= 300 || (status > 0 && status < 200) else { return nil }
        self.status = status
    }

    /// The refusal libcurl's error text names ("CONNECT tunnel failed, response 407", or
    /// "Received HTTP code 407 from proxy after CONNECT" before libcurl 7.72); `nil` when the
    /// text is not about a refused tunnel.
    package init?(libcurlMessage message: String) {
        let markers = ["CONNECT tunnel failed, response ", "Received HTTP code "]
        guard
            let range = markers.lazy.compactMap({ message.range(of: $0, options: .caseInsensitive) }).first,
            message.range(of: "CONNECT", range: range.lowerBound..<message.endIndex) != nil
        else { return nil }
        let digits = message[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard let status = Int(digits) else { return nil }
        self.init(status: status)
    }

    /// Whether the proxy asks for credentials (407, or 401).
    package var asksForCredentials: Bool { status == 407 || status == 401 }

    /// The `URLError` code for the refusal.
    package var code: URLError.Code {
        asksForCredentials ? .userAuthenticationRequired : .cannotConnectToHost
    }

    /// What happened, for an error description (never a credential: the proxy's URL is not
    /// part of it).
    package var reason: String {
        switch status {
        case 407:
            "the proxy refused to open a tunnel to the server: it answered 407 Proxy Authentication Required, "
                + "asking for proxy credentials (set them in the proxy's URL or a Proxy-Authorization header)"
        case 401:
            "the proxy refused to open a tunnel to the server: it answered 401 Unauthorized, asking for "
                + "credentials for the proxy"
        default:
            "the proxy refused to open a tunnel to the server: it answered \(status) to CONNECT"
        }
    }
}
