import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate behind ``URLSessionTransport``: collects each task's response and
/// body, reports progress, places downloads, and applies the header and challenge rules.
final class URLSessionTransportDelegate: NSObject, @unchecked Sendable {  // `lock` guards `states`
    /// One in-flight task. Its fields are only touched while holding the delegate's `lock`.
    final class TaskState {
        let request: URLRequest
        let destination: DownloadDestination?
        let progress: (@Sendable (Int64, Int64?) -> Void)?
        var continuation: CheckedContinuation<Response, any Error>?
        var response: HTTPURLResponse?
        var data = Data()
        var fileURL: URL?
        var fileError: (any Error)?
        /// Set when the transport cancelled the task itself to end an HTTP auth challenge.
        var challengeEnded = false
        /// Set when the caller cancelled; a cancellation then always wins.
        var cancelledByCaller = false

        init(
            request: URLRequest, destination: DownloadDestination?,
            progress: (@Sendable (Int64, Int64?) -> Void)?
        ) {
            self.request = request
            self.destination = destination
            self.progress = progress
        }
    }

    // `lock` guards `states` and every field of every `TaskState` in it.
    private let lock = NSLock()
    private var states: [Int: TaskState] = [:]

    func register(_ state: TaskState, for task: URLSessionTask) {
        lock.lock()
        states[task.taskIdentifier] = state
        lock.unlock()
    }

    /// Ends `task` with `error` before it was started.
    func fail(_ task: URLSessionTask, with error: any Error) {
        lock.lock()
        let state = states.removeValue(forKey: task.taskIdentifier)
        let continuation = state?.continuation
        state?.continuation = nil
        lock.unlock()
        continuation?.resume(throwing: error)
    }

    /// Records that the caller cancelled `task`, just before the task is cancelled.
    func markCancelledByCaller(_ task: URLSessionTask) {
        withState(task) { $0.cancelledByCaller = true }
    }

    private func withState<T>(_ task: URLSessionTask, _ body: (TaskState) -> T) -> T? {
        lock.lock()
        defer { lock.unlock() }
        guard let state = states[task.taskIdentifier] else { return nil }
        return body(state)
    }

    /// libcurl reports a body cut short of its `Content-Length` as an unknown error (-1);
    /// call it what it is, a connection lost mid-response, as Apple's URLSession does.
    static func clarified(_ error: any Error, state: TaskState) -> any Error {
        guard let urlError = error as? URLError, urlError.code == .unknown, let response = state.response,
            response.expectedContentLength > Int64(state.data.count)
        else { return error }
        return URLError(.networkConnectionLost, userInfo: urlError.userInfo)
    }

    /// Whether a redirect from `from` to `to` leaves the origin the credentials were meant for.
    static func isCrossOrigin(from: URL?, to: URL?) -> Bool {
        guard let from, let to else { return true }
        return from.scheme?.lowercased() != to.scheme?.lowercased()
            || from.host?.lowercased() != to.host?.lowercased()
            || effectivePort(from) != effectivePort(to)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}

extension URLSessionTransportDelegate: URLSessionDataDelegate, URLSessionDownloadDelegate {
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        withState(dataTask) { state in
            state.response = response as? HTTPURLResponse
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let report = withState(dataTask) { state -> (@Sendable (Int64, Int64?) -> Void, Int64, Int64?)? in
            state.data.append(data)
            guard let progress = state.progress else { return nil }
            let expected = dataTask.countOfBytesExpectedToReceive
            return (progress, Int64(state.data.count), expected > 0 ? expected : nil)
        }
        if let (progress, received, expected) = report ?? nil {
            progress(received, expected)
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        let progress = withState(task) { $0.progress } ?? nil
        progress?(totalBytesSent, totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        let progress = withState(downloadTask) { $0.progress } ?? nil
        progress?(totalBytesWritten, totalBytesExpectedToWrite > 0 ? totalBytesExpectedToWrite : nil)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask,
        didFinishDownloadingTo location: URL
    ) {
        // The temporary file is deleted when this method returns: move it now.
        guard let (destination, response) = withState(downloadTask, { ($0.destination, $0.response) })
        else { return }
        let httpResponse = response ?? (downloadTask.response as? HTTPURLResponse)
        var fileURL: URL?
        var fileError: (any Error)?
        if let destination, let httpResponse {
            do {
                fileURL = try DownloadPlacement.move(location, response: httpResponse, destination: destination)
            } catch {
                fileError = error
            }
        }
        withState(downloadTask) { state in
            state.response = httpResponse
            state.fileURL = fileURL
            state.fileError = fileError
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        var redirected = request
        if Self.isCrossOrigin(from: response.url ?? task.currentRequest?.url, to: request.url) {
            redirected.setValue(nil, forHTTPHeaderField: "Authorization")
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

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let state = states.removeValue(forKey: task.taskIdentifier)
        let continuation = state?.continuation
        state?.continuation = nil
        lock.unlock()
        guard let state, let continuation else { return }
        if let error {
            let endedByChallenge =
                state.challengeEnded && !state.cancelledByCaller && (error as? URLError)?.code == .cancelled
            if !endedByChallenge {
                continuation.resume(throwing: Self.clarified(error, state: state))
                return
            }
        }
        if let fileError = state.fileError {
            continuation.resume(throwing: fileError)
            return
        }
        let httpResponse = state.response ?? (task.response as? HTTPURLResponse)
        guard let httpResponse else {
            continuation.resume(throwing: URLError(.badServerResponse))
            return
        }
        continuation.resume(
            returning: Response(
                statusCode: httpResponse.statusCode, data: state.data, request: state.request,
                response: httpResponse, fileURL: state.fileURL))
    }
}
