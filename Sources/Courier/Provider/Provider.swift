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
    // `let` of a Sendable type (no lock needed), and subclasses must keep that rule. The
    // targets it is given need not be Sendable and their conformances may be isolated to an
    // actor: the provider reads a target, and calls the closures that take one, only in the
    // request functions (which run on the caller's actor, `nonisolated(nonsending)`) and in
    // tasks isolated to that same actor (the completion, progress and shared-call forms).
    // Nothing it sends elsewhere holds a target.

    /// Maps a target to its ``Endpoint``. The provider calls it on the caller's actor, once
    /// per request.
    ///
    /// It is `@Sendable`: in an app whose default isolation is `MainActor`, a closure that
    /// reads a main-actor target's properties does not compile; see <doc:Concurrency> for
    /// what to write then.
    public typealias EndpointClosure = @Sendable (Target) -> Endpoint
    /// Builds the `URLRequest` for an endpoint. Async (unlike Moya's callback, which hangs if
    /// never called); throwing fails the request. It runs on the caller's actor, so that a
    /// body is encoded where its `Encodable` conformance belongs, once per call, before the
    /// stages around the send (``RequestInterceptor``) and the plugins' `prepare`: retries and
    /// replays reuse the request it built, and every plugin's `prepare` runs again for each.
    public typealias RequestClosure = nonisolated(nonsending) @Sendable (Endpoint) async throws -> URLRequest
    /// Says whether, and how, a target is stubbed. The provider calls it on the caller's actor,
    /// once per request.
    public typealias StubClosure = @Sendable (Target) -> StubBehavior

    /// What the provider is made of: the arguments of its initializer and what follows from
    /// them, worked out in one place (``Configuration``) whichever initializer ran.
    let configuration: Configuration

    /// Maps targets to endpoints.
    public var endpointClosure: EndpointClosure { configuration.endpointClosure }
    /// Builds requests from endpoints.
    public var requestClosure: RequestClosure { configuration.requestClosure }
    /// Decides stubbing per target.
    public var stubClosure: StubClosure { configuration.stubClosure }
    /// The queue completion handlers run on when a call does not name one; `nil` means the
    /// main queue, as in Moya.
    public var callbackQueue: DispatchQueue? { configuration.callbackQueue }
    /// Sends real requests.
    public var transport: any HTTPTransport { configuration.transport }
    /// The plugins, in the order they run.
    public var plugins: [any PluginType] { configuration.listedPlugins }
    /// Retries transient failures; `nil` (the default, as in Moya) never retries.
    public var retryPolicy: RetryPolicy? { configuration.retryPolicy }
    /// Whether identical requests in flight at the same time share one call (Moya's
    /// `trackInflights`); see ``init(endpointClosure:requestClosure:stubClosure:callbackQueue:transport:retryPolicy:plugins:trackInflights:maxRequestsPerHost:)``.
    public var trackInflights: Bool { configuration.inflights != nil }
    /// The most calls this provider has in flight per host, or `nil` (the default) for no
    /// limit; see ``init(endpointClosure:requestClosure:stubClosure:callbackQueue:transport:retryPolicy:plugins:trackInflights:maxRequestsPerHost:)``.
    public var maxRequestsPerHost: Int? { configuration.hostGate?.limit }

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
        self.configuration = Configuration(
            endpointClosure: endpointClosure, requestClosure: requestClosure, stubClosure: stubClosure,
            callbackQueue: callbackQueue, transport: transport, retryPolicy: retryPolicy, plugins: plugins,
            trackInflights: trackInflights, maxRequestsPerHost: maxRequestsPerHost)
    }

    /// Creates a provider from a configuration worked out already: what a subclass's
    /// initializer (``RefreshableProvider``'s) calls, so that every option is handled once,
    /// in ``Configuration``.
    init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Sends `target` and returns the response.
    ///
    /// Runs the whole pipeline: endpoint, request, every plugin's `prepare` and `willSend`,
    /// the transport or stub, validation, `didReceive` and `process`. Cancelling the calling
    /// task cancels the transfer and throws ``CourierError/cancelled``.
    ///
    /// It runs on the caller's actor (`nonisolated(nonsending)`): the target is read there,
    /// and only what is built from it — the endpoint and the `URLRequest` — goes on to the
    /// transport, which does its work off that actor. So a target whose conformance is
    /// isolated to the main actor (an app's default) is used only on the main actor.
    ///
    /// This is the one override point; overrides restate `async throws(CourierError)`:
    ///
    /// ```swift
    /// override func request(_ target: GitHub) async throws(CourierError) -> Response {
    ///     try await super.request(target)
    /// }
    /// ```
    ///
    /// - Throws: a ``CourierError`` that says what failed.
    nonisolated(nonsending) open func request(_ target: Target) async throws(CourierError) -> Response {
        try await send(target)
    }

    /// The pipeline behind ``request(_:)``, with the ``retryPolicy``'s retries, for
    /// subclasses that wrap it (a subclass that replays a request calls this for each
    /// replay).
    nonisolated(nonsending) public final func send(_ target: Target) async throws(CourierError) -> Response {
        var call = makeCall(for: target, authorizationType: target.authorizationType)
        return try await send(&call)
    }

    /// The endpoint this provider makes for `target` (its ``endpointClosure``), as Moya's
    /// `endpoint(_:)`: what a request for `target` would be built from.
    ///
    /// ```swift
    /// let endpoint = provider.endpoint(.user(name: "ada"))
    /// #expect(endpoint.url == "https://api.github.com/users/ada")
    /// ```
    public func endpoint(_ target: Target) -> Endpoint {
        endpointClosure(target)
    }
}
