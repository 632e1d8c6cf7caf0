import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends a service's targets: turns each into a request, runs it through the plugins, sends
/// it (or answers from a stub) and returns the ``Response``.
///
/// ```swift
/// let provider = Provider<GitHub>(plugins: [NetworkLoggerPlugin()])
/// let response = try await provider.request(.zen)
/// let user = try await provider.request(.user(name: "ada"), as: User.self)
/// ```
///
/// Every stored property is a `let` of a `Sendable` type, which is what makes the class
/// `Sendable`; subclasses must keep that rule.
///
/// ``request(_:)`` is the one override point: the completion-handler, decoding and progress
/// forms all go through it, so a subclass such as ``RefreshableProvider`` changes them all.
///
/// ## Subclassing
///
/// Moya apps subclass `MoyaProvider` with an `override init`; the same works here:
///
/// ```swift
/// final class APIProvider: Provider<GitHub>, @unchecked Sendable {  // only `let`s
///     let region: String
///
///     init(region: String, plugins: [any PluginType] = []) {
///         self.region = region
///         super.init(plugins: plugins)
///     }
///
///     override init(
///         endpointClosure: @escaping EndpointClosure = Provider<GitHub>.defaultEndpointMapping,
///         requestClosure: @escaping RequestClosure = Provider<GitHub>.defaultRequestMapping,
///         stubClosure: @escaping StubClosure = Provider<GitHub>.neverStub,
///         callbackQueue: DispatchQueue? = nil,
///         transport: any HTTPTransport = URLSessionTransport(),
///         retryPolicy: RetryPolicy? = nil,
///         plugins: [any PluginType] = [],
///         trackInflights: Bool = false,
///         maxRequestsPerHost: Int? = nil
///     ) {
///         self.region = "eu"
///         super.init(
///             endpointClosure: endpointClosure, requestClosure: requestClosure, stubClosure: stubClosure,
///             callbackQueue: callbackQueue, transport: transport, retryPolicy: retryPolicy,
///             plugins: plugins, trackInflights: trackInflights, maxRequestsPerHost: maxRequestsPerHost)
///     }
/// }
/// ```
///
/// - The subclass restates `@unchecked Sendable`: Swift requires every subclass of a class
///   whose conformance is `@unchecked` to say so (it warns otherwise), and it is the
///   subclass's promise that its own stored properties are `let`s of `Sendable` types too.
/// - Parameters added to this initializer in later versions always come with a default. A
///   subclass that declares no initializer inherits them; an `init` of your own that calls
///   `super.init(…)` with labels (like `init(region:plugins:)` above) keeps compiling and
///   gets the defaults; an `override init` that restates the parameter list stops
///   compiling ("does not override a designated initializer"), so you are told to add the
///   new parameter; it is never skipped silently.
open class Provider<Target: TargetType>: @unchecked Sendable {  // only `let`s
    // @unchecked: an open class cannot be checked, but every stored property is an immutable
    // `let` of a Sendable type (no lock needed), and subclasses must keep that rule.

    /// Maps a target to its ``Endpoint``.
    public typealias EndpointClosure = @Sendable (Target) -> Endpoint
    /// Builds the `URLRequest` for an endpoint. Async (unlike Moya's callback, which hangs if
    /// never called); throwing fails the request.
    public typealias RequestClosure = @Sendable (Endpoint) async throws -> URLRequest
    /// Says whether, and how, a target is stubbed.
    public typealias StubClosure = @Sendable (Target) -> StubBehavior

    /// Maps targets to endpoints.
    public let endpointClosure: EndpointClosure
    /// Builds requests from endpoints.
    public let requestClosure: RequestClosure
    /// Decides stubbing per target.
    public let stubClosure: StubClosure
    /// The queue completion handlers run on when a call does not name one; `nil` means the
    /// main queue, as in Moya.
    public let callbackQueue: DispatchQueue?
    /// Sends real requests.
    public let transport: any HTTPTransport
    /// The plugins, in the order they run.
    public let plugins: [any PluginType]
    /// Retries transient failures; `nil` (the default, as in Moya) never retries.
    public let retryPolicy: RetryPolicy?
    /// Whether identical requests in flight at the same time share one call (Moya's
    /// `trackInflights`); see ``init(endpointClosure:requestClosure:stubClosure:callbackQueue:transport:retryPolicy:plugins:trackInflights:maxRequestsPerHost:)``.
    public let trackInflights: Bool
    /// The shared calls, when ``trackInflights`` is on.
    let inflights: InflightRequests?
    /// The most calls this provider has in flight per host, or `nil` (the default) for no
    /// limit; see ``init(endpointClosure:requestClosure:stubClosure:callbackQueue:transport:retryPolicy:plugins:trackInflights:maxRequestsPerHost:)``.
    public let maxRequestsPerHost: Int?
    /// The per-host limit, when ``maxRequestsPerHost`` is set.
    let hostGate: HostGate?

    /// Creates a provider; every argument has Moya's default.
    ///
    /// - Parameters:
    ///   - endpointClosure: maps a target to its endpoint
    ///     (``defaultEndpointMapping(for:)``).
    ///   - requestClosure: builds the `URLRequest` (``defaultRequestMapping(for:)``).
    ///   - stubClosure: stubbing per target (``neverStub(_:)``: always the network).
    ///   - callbackQueue: where completion handlers run by default (main queue).
    ///   - transport: what sends real requests (a new ``URLSessionTransport``).
    ///   - retryPolicy: retries transient failures (none by default).
    ///   - plugins: run in order on every request.
    ///   - trackInflights: when `true`, a request made while an identical one is in flight
    ///     (equal ``Endpoint``s, see ``Endpoint/==(_:_:)``) does not go out again: it waits
    ///     for the call already under way and gets its result, as in Moya. The plugins see
    ///     that one call. A caller that cancels stops waiting (and gets
    ///     ``CourierError/cancelled``) without cancelling the call for the others; the call
    ///     is cancelled only when every caller has. Downloads, and requests made with
    ///     progress reporting, always go out on their own. Off by default: two identical
    ///     `POST`s would otherwise be sent once.
    ///   - maxRequestsPerHost: at most this many calls to one host at a time (OkHttp's
    ///     `maxRequestsPerHost`); the others wait in arrival order *before* the plugins'
    ///     `prepare` runs, so before a request is signed. While a token refresh is under way,
    ///     requests still waiting here are signed afterwards, with the new token, instead of
    ///     going out with the old one and coming back 401. A call keeps its slot through its
    ///     retries and, on a ``RefreshableProvider``, through its refresh and replay; a caller
    ///     that cancels while waiting leaves the line at once with ``CourierError/cancelled``.
    ///     Hosts are compared by name (ports are not told apart); values below 1 count as 1.
    ///     `nil` (the default) sets no limit: HTTP/2 multiplexes many requests on one
    ///     connection, which a limit would hold back. The refresh closure of an
    ///     ``AuthSession`` must use a provider of its own (as it always should): with every
    ///     slot held by requests waiting for the refresh, a refresh queued behind them would
    ///     wait until the session's `refreshTimeout`.
    @preconcurrency public init(
        endpointClosure: @escaping EndpointClosure = Provider.defaultEndpointMapping,
        requestClosure: @escaping RequestClosure = Provider.defaultRequestMapping,
        stubClosure: @escaping StubClosure = Provider.neverStub,
        callbackQueue: DispatchQueue? = nil,
        transport: any HTTPTransport = URLSessionTransport(),
        retryPolicy: RetryPolicy? = nil,
        plugins: [any PluginType] = [],
        trackInflights: Bool = false,
        maxRequestsPerHost: Int? = nil
    ) {
        self.trackInflights = trackInflights
        self.maxRequestsPerHost = maxRequestsPerHost.map { max(1, $0) }
        self.hostGate = maxRequestsPerHost.map(HostGate.init(limit:))
        self.inflights = trackInflights ? InflightRequests() : nil
        self.endpointClosure = endpointClosure
        self.requestClosure = requestClosure
        self.stubClosure = stubClosure
        self.callbackQueue = callbackQueue
        self.transport = transport
        self.plugins = plugins
        self.retryPolicy = retryPolicy
    }

    /// Sends `target` and returns the response.
    ///
    /// Runs the whole pipeline: endpoint, request, every plugin's `prepare` and `willSend`,
    /// the transport or stub, validation, `didReceive` and `process`. Cancelling the calling
    /// task cancels the transfer and throws ``CourierError/cancelled``.
    ///
    /// This is the one override point; overrides restate `async throws(CourierError)`.
    ///
    /// - Throws: a ``CourierError`` that says what failed.
    open func request(_ target: Target) async throws(CourierError) -> Response {
        try await send(target)
    }

    /// The pipeline behind ``request(_:)``, with the ``retryPolicy``'s retries, for
    /// subclasses that wrap it (a subclass that replays a request calls this for each
    /// replay).
    public final func send(_ target: Target) async throws(CourierError) -> Response {
        guard let tracker = ProgressContext.current else {
            if let inflights {
                return try await sharedAttempts(target, inflights: inflights).get()
            }
            return try await attempts(target, progress: nil)
        }
        // Progress belongs to this request's own transfer: the plugins run without it, so a
        // request that a plugin makes (or a task it starts) never reports into it.
        let result: Result<Response, CourierError> = await ProgressContext.$current.withValue(nil) {
            do throws(CourierError) {
                return .success(try await self.attempts(target, progress: tracker.report))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The attempts of `target`, shared with every identical request in flight
    /// (``trackInflights``).
    private func sharedAttempts(_ target: Target, inflights: InflightRequests) async -> Result<
        Response, CourierError
    > {
        let endpoint = endpointClosure(target)
        let identity = endpoint.identity
        guard identity.isShareable else {
            return await attemptsResult(target, endpoint: endpoint)
        }
        return await inflights.result(for: identity) {
            await self.attemptsResult(target, endpoint: endpoint)
        }
    }

    private func attemptsResult(_ target: Target, endpoint: Endpoint) async -> Result<Response, CourierError> {
        do throws(CourierError) {
            return .success(try await attempts(target, progress: nil, endpoint: endpoint))
        } catch {
            return .failure(error)
        }
    }

    /// The attempts of one request: the first, and the ``retryPolicy``'s retries.
    ///
    /// - Parameters:
    ///   - endpoint: the first attempt's endpoint when the caller made it already.
    ///   - gated: whether to take a slot of ``maxRequestsPerHost`` first (the call that
    ///     takes it passes `false` for the attempts it then makes).
    private func attempts(
        _ target: Target, progress: ProgressContext.Report?, endpoint: Endpoint? = nil, gated: Bool = true
    ) async throws(CourierError) -> Response {
        // A branch, not a wrapper function: an ungated request then keeps one async frame
        // less alive while it waits (for a refresh, say).
        if gated, let hostGate {
            return try await attemptsHoldingSlot(hostGate, target, progress: progress, endpoint: endpoint)
        }
        guard let retryPolicy else {
            return try await attempt(target, progress: progress, endpoint: endpoint).get()
        }
        var retries = 0
        var endpoint = endpoint
        while true {
            let result = await attempt(target, progress: progress, endpoint: endpoint)
            endpoint = nil
            guard let delay = retryPolicy.delay(after: result, target: target, retries: retries) else {
                return try result.get()
            }
            retries += 1
            do {
                try await retryPolicy.sleep(delay)
            } catch {
                throw .cancelled
            }
            if Task.isCancelled { throw .cancelled }
        }
    }

    private func attemptsHoldingSlot(
        _ gate: HostGate, _ target: Target, progress: ProgressContext.Report?, endpoint: Endpoint?
    ) async throws(CourierError) -> Response {
        try await withHostSlot(gate, for: target, endpoint: endpoint) { (endpoint) async throws(CourierError) in
            try await self.attempts(target, progress: progress, endpoint: endpoint, gated: false)
        }
    }

    /// One pass through the pipeline: every plugin hook runs once.
    private func attempt(_ target: Target, progress: ProgressContext.Report?, endpoint: Endpoint?) async
        -> Result<Response, CourierError>
    {
        let endpoint = endpoint ?? endpointClosure(target)
        // Boxed once for every plugin hook, instead of once per hook and plugin.
        let erased: any TargetType = target
        let prepared: URLRequest
        do {
            prepared = try await prepareRequest(for: endpoint, target: erased)
        } catch {
            // Moya tells the plugins about a request cancelled before it left; other failures
            // to build the request reach the caller only.
            guard error.isCancelled else { return .failure(error) }
            return notifyUnsent(.failure(.cancelled), target: erased)
        }
        notifyWillSend(prepared, target: erased)
        let result = await perform(prepared, endpoint: endpoint, target: target, progress: progress)
        return finish(result, target: target, erased: erased)
    }

    private func prepareRequest(for endpoint: Endpoint, target: any TargetType) async throws(CourierError)
        -> URLRequest
    {
        var request: URLRequest
        do {
            request = try await requestClosure(endpoint)
            for plugin in plugins {
                request = try await plugin.prepare(request, target: target)
            }
        } catch {
            throw CourierError(error)
        }
        if Task.isCancelled { throw .cancelled }
        try RequestValidation.validate(request)
        return request
    }

    // The synchronous steps live in functions of their own (not inlined), so their
    // temporaries stay on the thread's stack instead of enlarging the async frame that every
    // waiting request keeps alive.

    @inline(never)
    private func notifyWillSend(_ request: URLRequest, target: any TargetType) {
        for plugin in plugins {
            plugin.willSend(request, target: target)
        }
    }

    /// Every plugin's `didReceive` and `process` for a request that was never sent, marked as
    /// such (``PluginNotification/requestWasSent``) so that a plugin counting requests in
    /// flight does not end one it never saw begin.
    @inline(never)
    func notifyUnsent(_ result: Result<Response, CourierError>, target: any TargetType) -> Result<
        Response, CourierError
    > {
        PluginNotification.$requestWasSent.withValue(false) {
            var result = result
            for plugin in plugins {
                plugin.didReceive(result, target: target)
            }
            for plugin in plugins {
                result = plugin.process(result, target: target)
            }
            return result
        }
    }

    /// Validation, then every plugin's `didReceive` and `process`.
    @inline(never)
    private func finish(_ result: Result<Response, CourierError>, target: Target, erased: any TargetType)
        -> Result<Response, CourierError>
    {
        var result = result
        if case .success(let response) = result, !target.validationType.accepts(response.statusCode) {
            result = .failure(.statusCode(response.rejected(by: target.validationType)))
        }
        for plugin in plugins {
            plugin.didReceive(result, target: erased)
        }
        for plugin in plugins {
            result = plugin.process(result, target: erased)
        }
        return result
    }

    private func perform(
        _ request: URLRequest, endpoint: Endpoint, target: Target, progress: ProgressContext.Report?
    ) async -> Result<Response, CourierError> {
        switch stubClosure(target) {
        case .never:
            return await sendForReal(
                request, task: endpoint.task, progress: progress, isIdempotent: target.resolvedIsIdempotent)
        case .immediate:
            return StubResponder.respond(to: request, endpoint: endpoint)
        case .delayed(let seconds):
            do {
                try await Delay.sleep(seconds: seconds)
            } catch {
                return .failure(.cancelled)
            }
            return StubResponder.respond(to: request, endpoint: endpoint)
        }
    }

    /// Sends `request` through the transport. A multipart body written to a temporary file
    /// for this attempt is removed when the attempt ends, however it ends.
    private func sendForReal(
        _ request: URLRequest, task: RequestTask, progress: ProgressContext.Report?, isIdempotent: Bool
    ) async -> Result<Response, CourierError> {
        let body: PreparedBody
        do {
            body = try await PreparedBody.prepare(for: task, request: request)
        } catch {
            return .failure(error)
        }
        defer { body.cleanUp() }
        do {
            let response = try await transport.send(
                TransportRequest(
                    urlRequest: body.request, body: body.transportBody,
                    downloadDestination: task.downloadDestination, progress: progress,
                    isIdempotent: isIdempotent))
            return .success(response)
        } catch {
            return .failure(.transport(error, request: body.request))
        }
    }
}
