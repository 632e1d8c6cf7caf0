import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Receiving: the response, the body (in memory, or into a download's temporary file),
/// progress, and the end of each task.
extension URLSessionTransportDelegate: URLSessionDataDelegate {
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let disposition = withState(dataTask) { state -> URLSession.ResponseDisposition in
            let httpResponse = response as? HTTPURLResponse
            // corelibs reports every interim head (`100 Continue`) as a response.
            if let status = httpResponse?.statusCode, (100..<200).contains(status), status != 101 {
                state.interimResponses += 1
                return state.interimResponses > Self.maximumInterimResponses ? .cancel : .allow
            }
            state.response = httpResponse
            state.respondedAt = DispatchTime.now().uptimeNanoseconds
            // A redirect the transport follows: its body is dropped, the next hop is sent.
            if let httpResponse, case .follow(let next) = HTTPRedirect.decide(after: state.hop, response: httpResponse)
            {
                state.redirect = next
                return .allow
            }
            state.redirect = nil
            // Only a success goes to the destination; an error body stays in memory, so a
            // 401 or a 404 page never replaces a good file.
            guard state.destination != nil, let httpResponse, (200..<300).contains(httpResponse.statusCode)
            else {
                if Self.announcesTooLargeBody(response, request: state.request, limit: state.maximumBodySize) {
                    state.bodyTooLarge = true
                    return .cancel
                }
                return .allow
            }
            do {
                state.download = try DownloadFile(in: state.transferDirectory)
                return .allow
            } catch {
                state.fileError = error
                return .cancel
            }
        }
        completionHandler(disposition ?? .allow)
        // swift-corelibs-foundation ignores the disposition: cancel the transfer itself.
        if disposition == .cancel {
            Self.cancelSoon(dataTask)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        typealias Report = (progress: @Sendable (Int64, Int64?) -> Void, received: Int64, expected: Int64?)
        let outcome = withState(dataTask) { state -> (report: Report?, failed: Bool, held: Int) in
            // Past the bound, or a redirect's body: dropped as it arrives, never kept.
            if state.bodyTooLarge || state.redirect != nil { return (nil, false, data.count) }
            if let download = state.download {
                do {
                    try download.write(data)
                } catch {
                    state.fileError = error
                    return (nil, true, data.count)
                }
            } else if data.count > state.maximumBodySize - state.data.count {
                // Stop keeping the body the moment it passes the bound: a gzip bomb is
                // counted after decoding, and nothing more of it is kept.
                let held = state.data.count + data.count
                state.bodyTooLarge = true
                state.data = Data()
                return (nil, true, held)
            } else {
                state.data.append(data)
            }
            let held = state.download == nil ? state.data.count : data.count
            state.receivedBytes += Int64(data.count)
            guard let progress = state.progress, !state.reportsUpload else { return (nil, false, held) }
            let expected = dataTask.countOfBytesExpectedToReceive
            return ((progress, state.receivedBytes, expected > 0 ? expected : nil), false, held)
        }
        guard let outcome else { return }
        recordBodyHeld(outcome.held)
        if outcome.failed {
            Self.cancelSoon(dataTask)
        } else if let report = outcome.report {
            report.progress(report.received, report.expected)
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        let report =
            withState(task) { state in
                state.sentBytes = totalBytesSent
                return state.reportsUpload ? (state.progress, state.uploadSize) : nil
            } ?? nil
        guard let (progress, uploadSize) = report, let progress else { return }
        progress(totalBytesSent, totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : uploadSize)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        // libcurl asks for the body again when it resends a request on its own: a kept-alive
        // connection that the server closed after reading the whole body looks to it like a
        // stale connection. An idempotent file upload may go again, from the start. Anything
        // else is refused: a non-idempotent request is never sent twice behind the caller's
        // back, and an in-memory body cannot be rewound by swift-corelibs-foundation (it
        // would send the headers alone and wait for a body that never comes).
        let decision = withState(task) { state -> (file: URL?, streamed: Bool) in
            if state.isIdempotent, let file = state.uploadFile { return (file, true) }
            state.resendRefused = true
            #if canImport(FoundationNetworking)
                return (nil, state.uploadFile != nil || task.originalRequest?.httpBodyStream != nil)
            #else
                return (nil, false)
            #endif
        }
        guard let decision else {
            completionHandler(nil)
            return
        }
        if let file = decision.file {
            if let stream = InputStream(url: file) {
                completionHandler(stream)
                return
            }
            // The file is gone: the request cannot be sent again; say so rather than "cancelled".
            withState(task) { $0.resendRefused = true }
        }
        // This callback runs on the session's own queue, which `cancel()` waits for: cancel
        // from elsewhere. A streamed body is also given a stream that fails its first read,
        // so libcurl aborts before it sends a single byte of body; an in-memory body cannot
        // be replaced (corelibs would trap), so the request goes out with no body and the
        // cancellation ends it: the server never receives a complete second request.
        Self.cancelSoon(task)
        completionHandler(decision.streamed ? RefusedBodyStream() : nil)
    }

    /// Cancels `task` from another thread: on Linux the delegate runs on the session's own
    /// queue (see `InlineDelegateQueue`), which `cancel()` waits for. One of the transport's
    /// launch queues waits for it, so that cancelling many tasks at once ties up no more
    /// threads than those few.
    static func cancelSoon(_ task: URLSessionTask) {
        URLSessionTransport.launchQueue().async { task.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let (state, continuation) = finishState(of: task) else { return }
        // The state is out of the table: no other callback can reach it any more.
        resume(continuation, with: Self.outcome(of: state, task: task, error: error))
    }

    /// libcurl reports most failures as an unknown error (-1); call them what they are, as
    /// Apple's URLSession does: a body it could not decode (corrupt gzip or deflate) is
    /// `cannotDecodeContentData`, which no retry can fix; a body cut short of its
    /// `Content-Length` is a connection lost mid-response; a header that corelibs could not
    /// parse is `cannotParseResponse`; a refused server certificate gets Apple's code for why
    /// (`serverCertificateHasBadDate`, `serverCertificateUntrusted`, …); a proxy that refused
    /// the tunnel says so (``ProxyRefusal``). A time-out (which corelibs reports without a URL)
    /// names the request.
    static func clarified(_ error: any Error, state: TaskState, url: URL?) -> any Error {
        guard let urlError = error as? URLError else { return error }
        if urlError.code == .timedOut, urlError.failingURL == nil {
            return requestTimedOutError(state: state, url: url)
        }
        if let refusal = proxyRefusalError(urlError, state: state, url: url) {
            return refusal
        }
        guard urlError.code == .unknown else { return error }
        if let certificate = certificateError(urlError, state: state, url: url) {
            return certificate
        }
        if let oversized = oversizedHeadError(urlError, state: state, url: url) {
            return oversized
        }
        if isDecodingFailure(urlError, response: state.response) {
            return URLError(.cannotDecodeContentData, userInfo: urlError.userInfo)
        }
        if isUnreadableHeader(urlError, response: state.response) {
            return unreadableHeaderError(state: state, url: url)
        }
        guard let response = state.response, response.expectedContentLength > state.receivedBytes else {
            return error
        }
        return URLError(.networkConnectionLost, userInfo: urlError.userInfo)
    }

    /// The error of a task that the transport ended itself: its download file could not be
    /// written, its body passed the bound, it was not to be sent again, or it ran out of
    /// time.
    private static func transportFailure(of state: TaskState, task: URLSessionTask) -> (any Error)? {
        if let fileError = state.fileError { return fileError }
        let url = task.currentRequest?.url
        if state.bodyTooLarge { return bodyTooLargeError(state: state, url: url) }
        if state.resendRefused { return resendRefusedError(state: state, url: url) }
        if state.timedOut { return resourceTimedOutError(state: state, url: url) }
        if state.interimResponses > maximumInterimResponses {
            return tooManyInterimResponsesError(state: state, url: url)
        }
        return nil
    }

    private static func outcome(of state: TaskState, task: URLSessionTask, error: (any Error)?) -> Result<
        Outcome, any Error
    > {
        // A task the transport ended itself fails with its own error, whatever `URLSession`
        // reported (a `.cancel` disposition completes the task without an error).
        if let failure = transportFailure(of: state, task: task) {
            state.download?.discard()
            return .failure(state.cancelledByCaller ? URLError(.cancelled) : failure)
        }
        if let error {
            let endedByChallenge =
                state.challengeEnded && !state.cancelledByCaller && (error as? URLError)?.code == .cancelled
            if !endedByChallenge {
                state.download?.discard()
                return .failure(clarified(error, state: state, url: task.currentRequest?.url))
            }
        }
        guard let httpResponse = state.response ?? (task.response as? HTTPURLResponse) else {
            state.download?.discard()
            return .failure(URLError(.badServerResponse))
        }
        var downloadedFile: URL?
        if let download = state.download {
            do {
                try download.finish()
                downloadedFile = download.url
            } catch {
                download.discard()
                return .failure(error)
            }
        }
        let response = Response(
            statusCode: httpResponse.statusCode, data: state.redirect == nil ? state.data : Data(),
            request: state.originalRequest, response: httpResponse)
        let hop = HopMeasurement(
            respondedAt: state.respondedAt, sentBytes: state.sentBytes, receivedBytes: state.receivedBytes,
            platform: state.platformMetrics)
        return .success(
            Outcome(
                response: response, httpResponse: httpResponse, downloadedFile: downloadedFile,
                redirect: state.redirect, hop: hop))
    }
}
