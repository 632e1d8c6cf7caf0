import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers from a script and records every request it is sent.
///
/// Script replies per route — each queued reply answers one request, in order — or for
/// every matching request, or with a closure; then assert on what was sent:
///
/// ```swift
/// let transport = ScriptedTransport()
/// transport.enqueue(.status(401), .json(#"{"login":"ada"}"#), for: .get("/user"))
/// let provider = Provider<MyAPI>(transport: transport)
///
/// // … run the code under test …
///
/// #expect(transport.requests(matching: .get("/user")).count == 2)
/// #expect(transport.lastRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer new")
/// ```
///
/// A request is answered by, in this order: the first script whose route matches and that
/// still has a queued reply; the first ``always(_:for:)`` reply whose route matches; the
/// ``respond(with:)`` closure. A request nothing answers fails loudly with an
/// ``UnscriptedRequestError`` that names its method and URL — it is never answered with a
/// made-up 200.
///
/// Every request is recorded, answered or not, as the provider sent it (after every plugin's
/// `prepare`); an upload body, from memory or streamed from a file, is put into the recorded
/// request's `httpBody`.
/// A download's reply body is written to the download's destination, as a real transfer
/// would. The transport is safe to use from many tasks at once.
public final class ScriptedTransport: HTTPTransport, Sendable {

    /// Answers a request that no queued or ``always(_:for:)`` reply matched; `nil` leaves it
    /// unscripted.
    public typealias Handler = @Sendable (URLRequest) -> Reply?

    private struct Script: Sendable {
        let route: Route
        var replies: [Reply]
    }

    private struct State: Sendable {
        var scripts: [Script] = []
        var fallbacks: [(route: Route, reply: Reply)] = []
        var handler: Handler?
        var recorded: [URLRequest] = []
    }

    private let state = LockIsolated(State())

    /// Creates a transport with no script: every request fails until you script it.
    public init() {}

    /// Creates a transport that answers requests, whatever they are, with `replies` in
    /// order. A request after the last reply fails with ``UnscriptedRequestError``: the
    /// transport never invents an answer.
    ///
    /// ```swift
    /// let transport = ScriptedTransport(replies: [.status(503), .status(503), .status(200)])
    /// // … a provider with a retry policy sends one request …
    /// #expect(transport.requestCount == 3)
    /// ```
    public convenience init(replies: [Reply]) {
        self.init()
        enqueue(contentsOf: replies, for: .any)
    }

    /// Creates a transport that answers with `handler`.
    ///
    /// ```swift
    /// let transport = ScriptedTransport { request in
    ///     request.url?.path == "/zen" ? .text("Keep it logically awesome.") : nil
    /// }
    /// ```
    public init(handler: @escaping Handler) {
        state.withValue { $0.handler = handler }
    }

    // MARK: Scripting

    /// Queues `replies` for requests that match `route`: the first matching request gets the
    /// first reply, and so on. Once used, a reply is gone.
    ///
    /// ```swift
    /// transport.enqueue(.status(401), .json(#"{"login":"ada"}"#), for: .get("/user"))
    /// ```
    ///
    /// For replies you have in an array, use ``enqueue(contentsOf:for:)``.
    public func enqueue(_ replies: Reply..., for route: Route) {
        // One unlabelled overload only: with a second one taking `[Reply]`, a wrong label
        // inside a reply (`.json("{}", status: 201)`) was reported as "type '[Reply]' has no
        // member 'json'" instead of naming the label. ScriptedTransportDiagnosticsTests
        // checks it.
        enqueue(contentsOf: replies, for: route)
    }

    /// Queues the replies in `replies` for requests that match `route`, in order.
    ///
    /// ```swift
    /// transport.enqueue(contentsOf: (1...3).map { .text("page \($0)") }, for: .get("/pages"))
    /// ```
    public func enqueue(contentsOf replies: some Sequence<Reply>, for route: Route) {
        let replies = Array(replies)
        state.withValue { $0.scripts.append(Script(route: route, replies: replies)) }
    }

    /// Answers every request that matches `route` with `reply`, once its queued replies (if
    /// any) are used up.
    public func always(_ reply: Reply, for route: Route) {
        state.withValue { $0.fallbacks.append((route, reply)) }
    }

    /// Answers requests that nothing else answered with `handler` (replacing an earlier one).
    public func respond(with handler: @escaping Handler) {
        state.withValue { $0.handler = handler }
    }

    /// Forgets the script and the recorded requests.
    public func reset() {
        state.setValue(State())
    }

    // MARK: Recording

    /// Every request sent so far, in order, answered or not.
    public var requests: [URLRequest] {
        state.withValue { $0.recorded }
    }

    /// The requests sent so far that match `route`, in order.
    public func requests(matching route: Route) -> [URLRequest] {
        requests.filter(route.matches)
    }

    /// How many requests were sent so far.
    public var requestCount: Int {
        state.withValue { $0.recorded.count }
    }

    /// The last request sent, if any.
    public var lastRequest: URLRequest? {
        state.withValue { $0.recorded.last }
    }

    /// Waits until at least `count` requests have been sent to the transport (recorded,
    /// whether answered yet or not): the way to know a request is under way — waiting for a
    /// ``Reply/delayed(seconds:_:)`` reply, say — before the test cancels it.
    ///
    /// ```swift
    /// transport.always(.delayed(seconds: 60, .status(200)), for: .any)
    /// let task = Task { try await provider.request(.me) }
    /// try await transport.waitForRequests(1)
    /// task.cancel()
    /// ```
    ///
    /// There is no time-out: give the suite a `.timeLimit`.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func waitForRequests(_ count: Int) async throws {
        try await state.wait { $0.recorded.count >= count }
    }

    /// How many queued replies have not been used yet (``always(_:for:)`` replies do not
    /// count). A test that expects every reply to be used checks that this is 0.
    public var pendingReplyCount: Int {
        state.withValue { $0.scripts.reduce(0) { $0 + $1.replies.count } }
    }

    // MARK: HTTPTransport

    /// Records `request` and answers it from the script.
    ///
    /// - Throws: ``UnscriptedRequestError`` when nothing in the script answers the request,
    ///   the error of a ``Reply/failure(_:)`` reply, or `CancellationError`.
    public func send(_ request: TransportRequest) async throws -> Response {
        try Task.checkCancellation()
        let recorded = Self.recordable(request)
        let (scripted, handler) = state.withValue { state -> (Reply?, Handler?) in
            state.recorded.append(recorded)
            return (Self.nextScriptedReply(for: recorded, in: &state), state.handler)
        }
        // The handler is the test's code: call it outside the lock, so it may use the transport.
        guard let reply = scripted ?? handler?(recorded) else {
            throw UnscriptedRequestError(
                request: recorded, scriptedRoutes: scriptDescription(), nearMisses: nearMisses(for: recorded))
        }
        return try await answer(request, recorded: recorded, with: reply)
    }

    /// Takes the queued or `always` reply for `request` from `state`.
    private static func nextScriptedReply(for request: URLRequest, in state: inout State) -> Reply? {
        if let index = state.scripts.firstIndex(where: { !$0.replies.isEmpty && $0.route.matches(request) }) {
            return state.scripts[index].replies.removeFirst()
        }
        return state.fallbacks.first(where: { $0.route.matches(request) })?.reply
    }

    private func answer(_ request: TransportRequest, recorded: URLRequest, with reply: Reply) async throws -> Response {
        switch reply {
        case .failure(let error):
            throw error
        case .delayed(let seconds, let reply):
            try await Delay.sleep(seconds: seconds)
            return try await answer(request, recorded: recorded, with: reply)
        case .response(let statusCode, let data, let headers):
            let url = recorded.url ?? URL(fileURLWithPath: "/")
            guard
                let httpResponse = HTTPURLResponse(
                    url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: headers)
            else {
                throw UnscriptedRequestError(request: recorded, scriptedRoutes: "an invalid status code \(statusCode)")
            }
            request.progress?(Int64(data.count), Int64(data.count))
            if let destination = request.downloadDestination {
                let fileURL = try DownloadPlacement.place(data, response: httpResponse, destination: destination)
                return Response(
                    statusCode: statusCode, data: Data(), request: recorded, response: httpResponse, fileURL: fileURL)
            }
            return Response(statusCode: statusCode, data: data, request: recorded, response: httpResponse)
        }
    }

    private func scriptDescription() -> String {
        state.withValue { state in
            var parts = state.scripts.map { "\($0.route) (\($0.replies.count) left)" }
            parts += state.fallbacks.map { "\($0.route) (always)" }
            if state.handler != nil { parts.append("a handler that returned nil") }
            return parts.isEmpty ? "nothing is scripted" : parts.joined(separator: ", ")
        }
    }

    /// How the scripted routes that look like `request` differ from it, each route once.
    private func nearMisses(for request: URLRequest) -> [String] {
        let routes = state.withValue { state in state.scripts.map(\.route) + state.fallbacks.map(\.route) }
        var seen: Set<String> = []
        return routes.compactMap { $0.nearMiss(for: request) }.filter { seen.insert($0).inserted }
    }

    /// The request with an upload body (in memory or in a file) put into `httpBody`, so tests
    /// can look at it.
    private static func recordable(_ request: TransportRequest) -> URLRequest {
        var urlRequest = request.urlRequest
        switch request.body {
        case .inline: break
        case .data(let data): urlRequest.httpBody = data
        case .file(let url): urlRequest.httpBody = try? Data(contentsOf: url)
        }
        return urlRequest
    }
}
