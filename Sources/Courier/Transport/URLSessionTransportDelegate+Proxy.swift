import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A proxy that refused to open a tunnel, said as such (``ProxyRefusal``).
///
/// swift-corelibs-foundation reports it as a lost connection (-1005) or an unknown error, with
/// libcurl's "CONNECT tunnel failed, response 407" in the underlying error.
extension URLSessionTransportDelegate {
    /// The error to report for `error` when a proxy refused the tunnel; `nil` for any other
    /// failure.
    static func proxyRefusalError(_ error: URLError, state: TaskState, url: URL?) -> URLError? {
        // libcurl hands the proxy's answer to `CONNECT` to the header callback: corelibs may
        // have taken it for the response, so whether one arrived says nothing here.
        guard let refusal = ProxyRefusal(libcurlMessage: libcurlMessage(of: error)) else { return nil }
        let url = url ?? state.request.url
        var info = userInfo(
            url: url,
            description: "\(describe(state.request, url: url)) failed: \(refusal.reason); the request was not sent.")
        if let underlying = error.userInfo[NSUnderlyingErrorKey] { info[NSUnderlyingErrorKey] = underlying }
        info[FailureReason.userInfoKey] = refusal.reason
        return URLError(refusal.code, userInfo: info)
    }
}
