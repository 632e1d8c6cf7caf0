import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real transport: sends requests with a `URLSession` that it creates and owns.
///
/// It drives delegate-based tasks rather than `URLSession`'s async methods, because only its
/// own delegate can make these guarantees on every platform:
///
/// - A redirect to another host (scheme, host or port) drops the `Authorization` header, as
///   OkHttp and browsers do; on Linux `URLSession` otherwise forwards every header.
/// - A 401 carrying a `Basic` or `Digest` challenge comes back as a ``Response`` at once; on
///   Linux a plain task never completes on such a challenge.
/// - Cancelling the calling `Task` cancels the transfer.
///
/// By default there is no `URLCache`: API responses are rarely cacheable and skipping the
/// cache measured 1.10–1.16× faster on Linux. Pass a configuration to change that.
public final class URLSessionTransport: HTTPTransport {
    /// The session; its delegate is owned by this transport.
    let session: URLSession
    private let delegate: URLSessionTransportDelegate

    /// A transport with Courier's default configuration: `URLSessionConfiguration.default`
    /// without a `URLCache`.
    public convenience init() {
        self.init(configuration: Self.defaultConfiguration())
    }

    /// A transport whose session uses `configuration`.
    public init(configuration: URLSessionConfiguration) {
        let delegate = URLSessionTransportDelegate()
        #if canImport(FoundationNetworking)
            let queue: OperationQueue = SerialDelegateQueue(label: "Courier.URLSessionTransport")
        #else
            let queue = OperationQueue()
            queue.name = "Courier.URLSessionTransport"
            queue.maxConcurrentOperationCount = 1
        #endif
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        // The session retains its delegate until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    /// `URLSessionConfiguration.default` without a URL cache.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// Sends `request`; see ``HTTPTransport/send(_:)``.
    public func send(_ request: TransportRequest) async throws -> Response {
        let task = makeTask(for: request)
        let state = URLSessionTransportDelegate.TaskState(
            request: request.urlRequest, destination: request.downloadDestination,
            progress: request.progress)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                state.continuation = continuation
                delegate.register(state, for: task)
                if Task.isCancelled {
                    delegate.fail(task, with: CancellationError())
                } else {
                    task.resume()
                }
            }
        } onCancel: { [delegate] in
            delegate.markCancelledByCaller(task)
            task.cancel()
        }
    }

    private func makeTask(for request: TransportRequest) -> URLSessionTask {
        if request.downloadDestination != nil {
            return session.downloadTask(with: request.urlRequest)
        }
        switch request.body {
        case .inline:
            return session.dataTask(with: request.urlRequest)
        case .file(let url):
            return session.uploadTask(with: request.urlRequest, fromFile: url)
        }
    }
}
