import Foundation

/// Receives the authorization callback on a loopback address (RFC 8252 §7.3), for command-line
/// tools and servers: `http://127.0.0.1:<ephemeral port><path>`.
///
/// It listens on `127.0.0.1` only, answers only a `GET` to its exact path with the state it
/// waits for (any other request gets an error page and is not taken as the callback), shows
/// the person a page saying they may close the tab, and then closes: one callback, once.
///
/// ```swift
/// let listener = try LoopbackRedirectListener()
/// let request = try await client.authorizationRequest(redirectURI: listener.redirectURI, scopes: ["read"])
/// print("Open \(request.url)")
/// let callback = try await listener.callback(for: request, timeout: 300)
/// let token = try await client.exchange(callback: callback, for: request)
/// ```
///
/// ``OAuthClient/authorizeWithLoopback(scopes:resources:path:timeout:open:)`` does all of that.
public final class LoopbackRedirectListener: Sendable {
    /// The `redirect_uri` to send: `http://127.0.0.1:<port><path>`.
    public let redirectURI: URL
    /// The page shown once the callback arrived.
    public let completionPage: String

    private let path: String
    private let descriptor: Int32
    private let state = Locked(ListenerState())

    private struct ListenerState {
        var closed = false
        /// Why it closed before anyone waited (a cancellation that came first is `.cancelled`).
        var closedBy: OAuthError?
        var waiting = false
        /// The accept thread runs; it closes the socket when it ends, so that the descriptor's
        /// number is never reused under a thread still calling `accept` on it.
        var serving = false
        var continuation: CheckedContinuation<URL, any Error>?
    }

    /// The page shown by default: the person may close the tab.
    public static let defaultCompletionPage = """
        <!doctype html><html><head><meta charset="utf-8"><title>Signed in</title></head>
        <body><h1>Signed in</h1><p>You may close this tab and return to the application.</p></body></html>
        """

    /// Starts listening on `127.0.0.1` on a port the system picks.
    ///
    /// - Parameters:
    ///   - path: the callback's path (default `/callback`); compared exactly.
    ///   - completionPage: the HTML shown once the callback arrived.
    /// - Throws: ``OAuthError/listenerFailed(reason:)`` when no socket can be opened.
    public init(path: String = "/callback", completionPage: String = LoopbackRedirectListener.defaultCompletionPage)
        throws(OAuthError)
    {
        let path = path.hasPrefix("/") ? path : "/" + path
        let (descriptor, port) = try LoopbackSocket.listen().get()
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else {
            LoopbackSocket.shutDown(descriptor)
            throw .listenerFailed(reason: "the path \(path) cannot stand in a URL")
        }
        self.path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? path
        self.descriptor = descriptor
        self.redirectURI = url
        self.completionPage = completionPage
    }

    deinit {
        close()
    }

    /// Waits for the callback of `request` and returns its URL (with `code`, `state`, `iss`, or
    /// an `error`); the listener is closed afterwards. Give the URL to
    /// ``OAuthClient/exchange(callback:for:)``.
    ///
    /// - Parameters:
    ///   - request: the authorization request the person was sent to (its `state` is the one
    ///     the callback must carry).
    ///   - timeout: seconds to wait (clamped to 1 s … 1 day).
    /// - Throws: ``OAuthError/listenerTimedOut(seconds:)``, ``OAuthError/cancelled`` when the
    ///   waiting task is cancelled, ``OAuthError/listenerFailed(reason:)`` when the listener was
    ///   closed or is already waiting.
    public func callback(for request: AuthorizationRequest, timeout: TimeInterval = 300) async throws(OAuthError) -> URL
    {
        let seconds = timeout.isFinite ? min(max(timeout, 1), 86_400) : 86_400
        let expectedState = request.state
        let timer = Task { [weak self] in
            try? await Delay.sleep(seconds: seconds)
            if !Task.isCancelled { self?.finish(.failure(OAuthError.listenerTimedOut(seconds: seconds))) }
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let refusal: OAuthError? = state.withValue { state in
                        if state.closed { return state.closedBy ?? .listenerFailed(reason: "the listener is closed") }
                        if state.waiting { return .listenerFailed(reason: "the listener is already waiting") }
                        state.waiting = true
                        state.serving = true
                        state.continuation = continuation
                        return nil
                    }
                    if let refusal {
                        continuation.resume(throwing: refusal)
                        return
                    }
                    let thread = Thread { [self] in self.serve(expectedState: expectedState) }
                    thread.name = "Courier loopback redirect listener"
                    thread.start()
                }
            } onCancel: {
                finish(.failure(OAuthError.cancelled))
            }
        } catch let error as OAuthError {
            throw error
        } catch {
            throw .listenerFailed(reason: String(describing: error))
        }
    }

    /// Closes the listener; a waiting ``callback(for:timeout:)`` fails.
    public func close() {
        finish(.failure(OAuthError.listenerFailed(reason: "the listener was closed")))
    }

    private func finish(_ result: Result<URL, any Error>) {
        let ending: (waiting: CheckedContinuation<URL, any Error>?, serving: Bool)? = state.withValue { state in
            guard !state.closed else { return nil }
            state.closed = true
            if case .failure(let error as OAuthError) = result { state.closedBy = error }
            defer { state.continuation = nil }
            return (state.continuation, state.serving)
        }
        guard let ending else { return }
        if ending.serving {
            LoopbackSocket.stopAccepting(descriptor)
        } else {
            LoopbackSocket.shutDown(descriptor)
        }
        ending.waiting?.resume(with: result)
    }

    /// The accept loop, on a thread of its own: until the callback arrives or the socket closes.
    private func serve(expectedState: String) {
        defer { Foundation.close(descriptor) }
        while let connection = LoopbackSocket.accept(descriptor) {
            guard let head = LoopbackSocket.readHead(connection) else {
                Foundation.close(connection)
                continue
            }
            switch classify(head: head, expectedState: expectedState) {
            case .callback(let url):
                LoopbackSocket.answer(connection, status: "200 OK", page: completionPage)
                finish(.success(url))
                return
            case .refused(let status, let message):
                LoopbackSocket.answer(connection, status: status, page: Self.errorPage(message))
            }
        }
    }

    enum Classification: Equatable {
        case callback(URL)
        case refused(status: String, message: String)
    }

    /// What one request head is: the callback, or something refused with a page.
    func classify(head: String, expectedState: String) -> Classification {
        let requestLine = head.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let words = requestLine.split(separator: " ")
        guard words.count == 3, words[0] == "GET" else {
            return .refused(status: "405 Method Not Allowed", message: "This address only takes the sign-in callback.")
        }
        let target = String(words[1])
        guard target.hasPrefix("/"), let url = URL(string: "http://127.0.0.1:\(redirectURI.port ?? 0)\(target)"),
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.percentEncodedPath == path
        else {
            return .refused(status: "404 Not Found", message: "This address only takes the sign-in callback.")
        }
        guard components.queryItems?.first(where: { $0.name == "state" })?.value == expectedState else {
            return .refused(
                status: "400 Bad Request",
                message: "This sign-in answer is not the one the application is waiting for. Start the sign-in again.")
        }
        return .callback(url)
    }

    private static func errorPage(_ message: String) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><title>Sign-in</title></head>
        <body><h1>Sign-in</h1><p>\(message)</p></body></html>
        """
    }
}
