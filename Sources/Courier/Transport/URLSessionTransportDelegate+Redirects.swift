import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redirects and challenges: `URLSession` follows no redirect (the transport does, see
/// ``HTTPRedirect``), and an HTTP auth challenge ends as the 401 response it came with.
extension URLSessionTransportDelegate: URLSessionTaskDelegate {
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // The 3xx comes back to the delegate as the response; the transport decides from its
        // own `Location` whether and where to go next. The request `URLSession` proposes here
        // is not to be trusted: on Linux it has lost a 307's body, and a `file:` or `data:`
        // Location has become a request for that path on the same server, cookies included.
        completionHandler(nil)
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
                // Cancelling the challenge cancels the task, which waits for the session's
                // own queue, where this callback runs (see `InlineDelegateQueue`): answer
                // from elsewhere. corelibs' handler may be called from any thread.
                nonisolated(unsafe) let complete = completionHandler
                DispatchQueue.global().async { complete(.cancelAuthenticationChallenge, nil) }
                return
            }
        #endif
        // On Apple platforms the default handling, with no stored credential, completes the
        // task with the 401 response. (On Linux, for a TLS challenge, it does nothing that
        // waits for the session's queue.)
        completionHandler(.performDefaultHandling, nil)
    }
}
