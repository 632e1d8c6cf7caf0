import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How ``URLSessionTransport`` follows a redirect: a pure decision, from the request that was
/// sent and the 3xx response's own `Location` header, to the next request or to the 3xx as
/// the answer. The rules are CourierCurl's, and those of browsers and OkHttp.
///
/// `URLSession` is never left to follow a redirect itself: on Linux it follows a 307 or 308
/// without its body, resolves a relative `Location` by hand (`x` becomes `/x`) and turns a
/// `Location` of another scheme without a host (`file:///etc/passwd`, `data:…`) into a request
/// for that path on the same server, so the check on the request it proposes would pass.
package enum HTTPRedirect {
    /// The status codes whose `Location` is followed. 300 has no single target; 305 (use a
    /// proxy) and 306 are never followed.
    static let followedStatusCodes: Set<Int> = [301, 302, 303, 307, 308]

    /// How many redirects one request follows before it fails with
    /// `URLError(.httpTooManyRedirects)`: 16, as CourierCurl.
    static let maximumRedirects = 16

    /// The headers that describe a body, dropped with it when a redirect turns into a `GET`.
    static let bodyHeaders = ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"]

    /// Why a 3xx response is the answer rather than a step to the next request.
    package enum Answer: Equatable, Sendable {
        /// Not one of ``followedStatusCodes``.
        case notARedirect
        /// No `Location`, or one that is not a URL.
        case noLocation
        /// A `Location` whose scheme is not `http` or `https`, or without a host.
        case unsupportedLocation
        /// The body would go again, and it is a stream that can be read only once.
        case oneShotBody
        /// The body would go to another origin, and it carries a credential
        /// (``CrossOriginRedirect/bodyCarriesCredential(_:contentType:)``).
        case credentialInBody
    }

    /// What to do about a response.
    package enum Decision: Sendable {
        /// Send this request next.
        case follow(TransportRequest)
        /// The response is the answer.
        case answer(Answer)
    }

    /// What to do about `response`, the answer to `hop`.
    package static func decide(after hop: TransportRequest, response: HTTPURLResponse) -> Decision {
        let status = response.statusCode
        guard followedStatusCodes.contains(status) else { return .answer(.notARedirect) }
        guard let target = location(of: response, relativeTo: hop.urlRequest.url ?? response.url) else {
            return .answer(.noLocation)
        }
        let scheme = target.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", target.host?.isEmpty == false else {
            return .answer(.unsupportedLocation)
        }

        var next = hop
        var request = hop.urlRequest
        request.url = target
        let method = (request.httpMethod ?? "GET").uppercased()
        // 303 always becomes a GET (a HEAD stays a HEAD); 301 and 302 turn a POST into a GET,
        // as every browser does; anything else keeps its method and its body.
        let becomesGet = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST")
        if becomesGet {
            request.httpMethod = "GET"
            request.httpBody = nil
            request.httpBodyStream = nil
            for name in bodyHeaders { request.setValue(nil, forHTTPHeaderField: name) }
            next.body = .inline
            next.isIdempotent = true
        } else if case .inline = hop.body, hop.urlRequest.httpBodyStream != nil {
            return .answer(.oneShotBody)
        }
        if CrossOriginRedirect.isCrossOrigin(from: hop.urlRequest.url, to: target) {
            if !becomesGet, carriesCredential(hop) { return .answer(.credentialInBody) }
            for name in (request.allHTTPHeaderFields ?? [:]).keys where CrossOriginRedirect.dropsHeader(named: name) {
                request.setValue(nil, forHTTPHeaderField: name)
            }
        }
        next.urlRequest = request
        return .follow(next)
    }

    /// `next`, the hop that follows `hop` after `redirect`, with the request the hop's
    /// ``TransportRequest/redirectSigner`` makes when it goes to `hop`'s origin; as it is
    /// otherwise (or when there is no signer). `nil` when the signer made none.
    package static func signed(_ next: TransportRequest, after hop: TransportRequest, redirect: HTTPURLResponse)
        async -> TransportRequest?
    {
        guard let signer = hop.redirectSigner,
            !CrossOriginRedirect.isCrossOrigin(from: hop.urlRequest.url, to: next.urlRequest.url)
        else { return next }
        guard let request = await signer(next.urlRequest, redirect) else { return nil }
        var signed = next
        signed.urlRequest = request
        return signed
    }

    /// The absolute URL that `response`'s `Location` names, resolved against `base` as RFC
    /// 3986 says; `nil` when there is none.
    static func location(of response: HTTPURLResponse, relativeTo base: URL?) -> URL? {
        guard let location = response.value(forHTTPHeaderField: "Location")?.trimmingCharacters(in: .whitespaces),
            !location.isEmpty
        else { return nil }
        return URL(string: location, relativeTo: base)?.absoluteURL
    }

    /// Whether the body `hop` sends carries a credential.
    private static func carriesCredential(_ hop: TransportRequest) -> Bool {
        let contentType = hop.urlRequest.value(forHTTPHeaderField: "Content-Type")
        switch hop.body {
        case .inline:
            guard let body = hop.urlRequest.httpBody else { return false }
            return CrossOriginRedirect.bodyCarriesCredential(body, contentType: contentType)
        case .data(let body):
            return CrossOriginRedirect.bodyCarriesCredential(body, contentType: contentType)
        case .file(let file):
            return CrossOriginRedirect.bodyCarriesCredential(contentsOf: file, contentType: contentType)
        }
    }
}
