import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The header and challenge rules: a cross-origin redirect drops the credentials meant for
/// the first origin, and an HTTP auth challenge ends as the 401 response it came with.
extension URLSessionTransportDelegate: URLSessionTaskDelegate {
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // Only http and https are followed: a redirect to file:, ftp: or anything else comes
        // back as the 3xx response it is.
        guard let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            completionHandler(nil)
            return
        }
        #if canImport(FoundationNetworking)
            // A 307 or 308 asks for the same request, body included, at the new location;
            // swift-corelibs-foundation follows it with the method but without the body (a
            // POST arrives empty). Stop here instead: the caller gets the 307 or 308 itself.
            if response.statusCode == 307 || response.statusCode == 308, withState(task, { $0.hasBody }) == true {
                completionHandler(nil)
                return
            }
        #endif
        var redirected = request
        if CrossOriginRedirect.isCrossOrigin(from: response.url ?? task.currentRequest?.url, to: request.url) {
            for name in (redirected.allHTTPHeaderFields ?? [:]).keys where CrossOriginRedirect.dropsHeader(named: name)
            {
                redirected.setValue(nil, forHTTPHeaderField: name)
            }
        }
        completionHandler(redirected)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation delivers the 401's headers and body first, then asks
            // about the challenge — and never completes the task if we let it handle the
            // challenge by default. Courier sends credentials as headers (plugins), so end the
            // task here; didCompleteWithError turns it back into the 401 response.
            let method = challenge.protectionSpace.authenticationMethod
            let isHTTPChallenge =
                method == NSURLAuthenticationMethodHTTPBasic || method == NSURLAuthenticationMethodHTTPDigest
                || method == NSURLAuthenticationMethodDefault
            if isHTTPChallenge, withState(task, { $0.response != nil }) == true {
                withState(task) { $0.challengeEnded = true }
                completionHandler(.cancelAuthenticationChallenge, nil)
                return
            }
        #endif
        // On Apple platforms the default handling, with no stored credential, completes the
        // task with the 401 response.
        completionHandler(.performDefaultHandling, nil)
    }
}
