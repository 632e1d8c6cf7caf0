import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The errors the transport's own rules end a task with, and how it recognises the ones
/// libcurl reports vaguely.
extension URLSessionTransportDelegate {
    /// Whether a response's `Content-Length` already says its body will not fit in `limit`
    /// bytes. Only a body without a content coding is judged by its length: a decoded body
    /// is counted as it arrives. The answer to a `HEAD`, a 204 or a 304 has no body, whatever
    /// its `Content-Length` says.
    static func announcesTooLargeBody(_ response: URLResponse, request: URLRequest, limit: Int) -> Bool {
        guard response.expectedContentLength > Int64(limit), request.httpMethod?.uppercased() != "HEAD" else {
            return false
        }
        if let status = (response as? HTTPURLResponse)?.statusCode, status == 204 || status == 304 {
            return false
        }
        let coding = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")
        return coding.map { $0.trimmingCharacters(in: .whitespaces).lowercased() == "identity" } ?? true
    }

    /// Whether libcurl failed to decode the body (its message for CURLE_BAD_CONTENT_ENCODING
    /// is "Error while processing content unencoding: …", or "Unrecognized content
    /// encoding type…") of a response that has a content coding.
    static func isDecodingFailure(_ error: URLError, response: HTTPURLResponse?) -> Bool {
        guard let coding = response?.value(forHTTPHeaderField: "Content-Encoding"),
            !coding.trimmingCharacters(in: .whitespaces).isEmpty
        else { return false }
        return libcurlMessage(of: error).lowercased().contains("encoding")
    }

    /// Whether swift-corelibs-foundation gave up on the response's header: it aborts libcurl's
    /// header callback (libcurl then says "Failed writing header") on a line it cannot parse,
    /// a header byte that is not UTF-8 among them.
    static func isUnreadableHeader(_ error: URLError, response: HTTPURLResponse?) -> Bool {
        guard response == nil else { return false }
        return libcurlMessage(of: error).lowercased().contains("writing header")
    }

    /// What libcurl said about a failure that swift-corelibs-foundation reports vaguely: its
    /// text is in the underlying error (and sometimes in the error's own description).
    static func libcurlMessage(of error: URLError) -> String {
        ((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription ?? "")
            + " " + error.localizedDescription
    }

    /// The response's header could not be read.
    static func unreadableHeaderError(state: TaskState, url: URL?) -> URLError {
        let url = url ?? state.request.url
        return URLError(
            .cannotParseResponse,
            userInfo: userInfo(
                url: url,
                description:
                    "\(describe(state.request, url: url)) failed: its response header could not be read (URLSession on "
                    + "Linux refuses a malformed header line, and header bytes that are not UTF-8, such as a file "
                    + "name in ISO-8859-1; CurlTransport reads them)."))
    }

    /// The body in memory passed the transport's bound.
    static func bodyTooLargeError(state: TaskState, url: URL?) -> URLError {
        let url = url ?? state.request.url
        return URLError(
            .dataLengthExceedsMaximum,
            userInfo: userInfo(
                url: url,
                description:
                    "\(describe(state.request, url: url)) failed: the response body is larger than the transport's "
                    + "limit of \(state.maximumBodySize) bytes (maximumResponseBodySize); the transfer was cancelled."))
    }

    /// `URLSession` asked for the body again to resend the request on its own, and the
    /// transport refused.
    static func resendRefusedError(state: TaskState, url: URL?) -> URLError {
        let url = url ?? state.request.url
        let why =
            state.isIdempotent
            ? "its in-memory body cannot be sent again on a new connection"
            : "it is not idempotent, so it is not sent again unless a RetryPolicy allows it"
        return URLError(
            .networkConnectionLost,
            userInfo: userInfo(
                url: url,
                description:
                    "\(describe(state.request, url: url)) failed: the connection was lost after the request was sent, "
                    + "and \(why)."))
    }

    /// No bytes came for the request's idle time-out; `URLSession` says so without naming the
    /// request.
    static func requestTimedOutError(state: TaskState, url: URL?) -> URLError {
        let url = url ?? state.request.url
        return URLError(
            .timedOut,
            userInfo: userInfo(
                url: url,
                description:
                    "\(describe(state.request, url: url)) timed out: nothing arrived within its request time-out "
                    + "(timeoutIntervalForRequest, or the URLRequest's timeoutInterval)."))
    }

    /// The whole request, redirects included, took longer than its resource time-out.
    static func resourceTimedOutError(state: TaskState, url: URL?) -> URLError {
        let url = url ?? state.request.url
        return resourceTimedOutError(request: state.request, url: url, timeout: state.resourceTimeout)
    }

    /// The whole of `request` took longer than `timeout` seconds.
    static func resourceTimedOutError(request: URLRequest, url: URL?, timeout: TimeInterval) -> URLError {
        URLError(
            .timedOut,
            userInfo: userInfo(
                url: url,
                description:
                    "\(describe(request, url: url)) timed out: the whole request took longer than its resource "
                    + "time-out of \(seconds(timeout)) (timeoutIntervalForResource)."))
    }

    /// The server sent interim (1xx) heads past ``maximumInterimResponses``, and no answer.
    static func tooManyInterimResponsesError(state: TaskState, url: URL?) -> URLError {
        let url = url ?? state.request.url
        return URLError(
            .badServerResponse,
            userInfo: userInfo(
                url: url,
                description:
                    "\(describe(state.request, url: url)) failed: the server sent more than "
                    + "\(maximumInterimResponses) interim (1xx) responses and no answer."))
    }

    /// `request` was redirected more than ``HTTPRedirect/maximumRedirects`` times.
    static func tooManyRedirectsError(request: URLRequest, url: URL?) -> URLError {
        URLError(
            .httpTooManyRedirects,
            userInfo: userInfo(
                url: url,
                description:
                    "\(describe(request, url: url)) failed: it was redirected more than "
                    + "\(HTTPRedirect.maximumRedirects) times."))
    }

    /// `2 s`, `0.5 s`: a time-out as people write it.
    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && value < 1e15 ? "\(Int64(value)) s" : "\(value) s"
    }

    /// `METHOD scheme://host:port/path`: no query, no user info (either may hold a secret).
    static func describe(_ request: URLRequest, url: URL?) -> String {
        let method = request.httpMethod ?? "GET"
        guard let url else { return method }
        return "\(method) \(url.locationWithoutSecrets)"
    }

    static func userInfo(url: URL?, description: String) -> [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url {
            info[NSURLErrorFailingURLErrorKey] = url
        }
        return info
    }
}

/// The body stream handed to `URLSession` when the transport refuses to resend a request:
/// its first read fails, so libcurl aborts the transfer before it sends any of the body.
final class RefusedBodyStream: InputStream {
    init() {
        super.init(data: Data())
    }

    override var hasBytesAvailable: Bool { true }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int { -1 }

    override var streamError: (any Error)? { URLError(.networkConnectionLost) }
}
