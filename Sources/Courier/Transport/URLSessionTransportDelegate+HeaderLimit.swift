import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response head larger than libcurl accepts, said as the server's fault.
///
/// libcurl keeps a header line of at most 100 KiB; past it, it fails the transfer as "Out of
/// memory" (`CURLE_OUT_OF_MEMORY`), which swift-corelibs-foundation passes on as
/// `URLError(.unknown)`. Nothing ran out of memory: the server sent more than the client
/// accepts, a bad server response.
extension URLSessionTransportDelegate {
    /// libcurl's limit on one header line, in bytes.
    static let maximumHeaderLine = 100 * 1024

    /// The error to report for `error` when libcurl gave up on a response head that was too
    /// large; `nil` for any other failure.
    static func oversizedHeadError(_ error: URLError, state: TaskState, url: URL?) -> URLError? {
        guard error.code == .unknown, state.response == nil,
            libcurlMessage(of: error).lowercased().contains("out of memory")
        else { return nil }
        let url = url ?? state.request.url
        let reason =
            "the server sent a response header larger than the client accepts (a header line over "
            + "\(maximumHeaderLine / 1024) KiB); the response was not read"
        var info = userInfo(url: url, description: "\(describe(state.request, url: url)) failed: \(reason).")
        if let underlying = error.userInfo[NSUnderlyingErrorKey] { info[NSUnderlyingErrorKey] = underlying }
        info[FailureReason.userInfoKey] = reason
        return URLError(.badServerResponse, userInfo: info)
    }
}
