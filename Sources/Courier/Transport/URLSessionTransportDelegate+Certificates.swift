import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A refused server certificate, under the code Apple's `URLSession` gives it.
///
/// swift-corelibs-foundation reports every certificate failure as `URLError(.unknown)`, with
/// libcurl's text ("SSL certificate problem: certificate has expired") in the underlying
/// error; the transport reads that text (``CertificateFailure``).
extension URLSessionTransportDelegate {
    /// The error to report for `error` when libcurl refused the server's certificate; `nil`
    /// for any other failure.
    static func certificateError(_ error: URLError, state: TaskState, url: URL?) -> URLError? {
        guard error.code == .unknown, let failure = CertificateFailure(libcurlMessage: libcurlMessage(of: error))
        else { return nil }
        let url = url ?? state.request.url
        var info = userInfo(
            url: url,
            description: "\(describe(state.request, url: url)) failed: \(failure.reason); nothing was sent.")
        if let underlying = error.userInfo[NSUnderlyingErrorKey] { info[NSUnderlyingErrorKey] = underlying }
        info[FailureReason.userInfoKey] = failure.reason
        return URLError(failure.code, userInfo: info)
    }
}
