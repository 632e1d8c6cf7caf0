import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The caller's `Cookie` header is kept, on the first hop and on every redirect that stays on
/// the origin; the session's cookie storage adds its cookies beside it.
///
/// swift-corelibs-foundation sets a request's `Cookie` header from the session's cookie
/// storage whenever the storage holds cookies for the URL, replacing the caller's: a redirect
/// that sets a cookie (`Set-Cookie` on a 302, say) made the next hop lose the caller's
/// cookies. The transport's session therefore sets no cookies itself
/// (`httpShouldSetCookies` is off in its copy of the configuration); the transport adds the
/// stored ones, for each hop's own URL, to what the caller sent. A cookie the caller named
/// wins over a stored one of the same name. Storing the cookies a response sets is left to
/// `URLSession`, as the configuration says.
extension URLSessionTransport {
    /// `configuration`, or a copy of it that sets no cookies itself; the cookie storage the
    /// transport then reads, `nil` when the configuration sets no cookies.
    static func cookieHandling(_ configuration: URLSessionConfiguration) -> (
        URLSessionConfiguration, storage: HTTPCookieStorage?
    ) {
        guard configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage,
            let copy = configuration.copy() as? URLSessionConfiguration
        else { return (configuration, nil) }
        copy.httpShouldSetCookies = false
        return (copy, storage)
    }

    /// `request` with the cookies `storage` holds for its URL added to its own `Cookie`
    /// header (the caller's cookie wins over a stored one of the same name).
    static func addingStoredCookies(to request: URLRequest, from storage: HTTPCookieStorage?) -> URLRequest {
        guard let storage, request.httpShouldHandleCookies, let url = request.url,
            let cookies = storage.cookies(for: url), !cookies.isEmpty
        else { return request }
        let own = request.value(forHTTPHeaderField: "Cookie") ?? ""
        let ownNames = Set(
            own.split(separator: ";").compactMap { pair in
                pair.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) }
            })
        let stored = cookies.filter { !ownNames.contains($0.name) }
        guard let storedHeader = HTTPCookie.requestHeaderFields(with: stored)["Cookie"], !storedHeader.isEmpty
        else { return request }
        var result = request
        result.setValue(own.isEmpty ? storedHeader : "\(own); \(storedHeader)", forHTTPHeaderField: "Cookie")
        return result
    }
}
