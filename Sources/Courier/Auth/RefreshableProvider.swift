import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``Provider`` that keeps requests working across token expiry.
///
/// ```swift
/// let provider = RefreshableProvider<MyAPI>(auth: session)
/// let profile = try await provider.request(.profile, as: Profile.self)
/// ```
///
/// - Every signed request goes out with a valid token, refreshed first when it is about to
///   expire. The signing is done by the provider's re-authentication stage
///   (``reauthentication``, a ``ReauthenticationInterceptor``) with the settings of its
///   ``AuthPlugin`` (listed first among ``Provider/plugins``), before any plugin's `prepare`,
///   so a logger sees the signed request.
/// - When the server rejects the token anyway (401, or what ``RefreshPolicy`` says), the
///   session refreshes **once** for all requests that fail together, and each is replayed
///   with the new token: every plugin's `prepare` runs again.
/// - A replay that is rejected again is returned as it is; no loop.
/// - Only a rejection from the origin the token was sent to counts: after a redirect to
///   another origin (which drops `Authorization`), that origin's 401 is returned as it is.
/// - Targets whose ``AccessTokenAuthorizable/authorizationType`` is `nil` (login, token
///   endpoints, third-party hosts) are never signed and never trigger a refresh.
/// - When the refresh token is dead, requests fail with
///   ``AuthenticationError/sessionExpired`` and the session emits
///   ``AuthEvent/sessionExpired`` once.
open class RefreshableProvider<Target: TargetType>: Provider<Target>, @unchecked Sendable {  // only `let`s
    // @unchecked: as for Provider, every stored property is an immutable `let` of a
    // Sendable type.

    /// The session whose token signs requests.
    public let auth: AuthSession
    /// When a response counts as a rejected token, and how replays work.
    public let refreshPolicy: RefreshPolicy
    /// The stage around every call that signs it, and refreshes and replays on a rejected
    /// token: the one place those decisions are made.
    public let reauthentication: ReauthenticationInterceptor

    /// Creates a provider.
    ///
    /// - Parameters:
    ///   - auth: the session whose token signs requests.
    ///   - refreshPolicy: what counts as a rejected token (default: 401).
    ///   - authPlugin: the signing plugin's settings — its ``AuthPlugin/refreshLeeway`` and
    ///     ``AuthPlugin/allowedHosts``; by default those of the first ``AuthPlugin`` in
    ///     `plugins`, else `AuthPlugin(auth: auth)`'s. The provider signs with `auth`, always:
    ///     a plugin made for another session lends its settings only, so the session that
    ///     signs, refreshes and is waited on is the one ``auth`` names. The signing plugin runs
    ///     first, before every other plugin.
    ///   - endpointClosure: maps a target to its endpoint, as for ``Provider``.
    ///   - requestClosure: builds the `URLRequest`, as for ``Provider``.
    ///   - stubClosure: stubbing per target, as for ``Provider``.
    ///   - callbackQueue: where completion handlers run by default, as for ``Provider``.
    ///   - transport: what sends real requests, as for ``Provider``.
    ///   - retryPolicy: retries transient failures, as for ``Provider``; counted apart from
    ///     the token replays.
    ///   - plugins: your plugins; they run after the signing plugin. An ``AuthPlugin`` among
    ///     them is not installed as a plugin of its own (a request is signed once, by the
    ///     provider's signing plugin): when `authPlugin` is `nil` the first one lends its
    ///     settings, and every other one — all of them when `authPlugin` is given — is
    ///     dropped.
    ///   - trackInflights: identical requests in flight together share one call, as for
    ///     ``Provider``; a shared call is refreshed and replayed once for all its callers.
    ///   - maxRequestsPerHost: at most this many calls to one host at a time, as for
    ///     ``Provider``; `nil` (the default) sets no limit. A call keeps its slot through its
    ///     refresh and replay, so the requests waiting for a slot when a token is rejected are
    ///     signed after the refresh, with the new token, instead of coming back 401 too.
    @preconcurrency public init(
        auth: AuthSession,
        refreshPolicy: RefreshPolicy = .default,
        authPlugin: AuthPlugin? = nil,
        endpointClosure: @escaping EndpointClosure = Provider<Target>.defaultEndpointMapping,
        requestClosure: @escaping RequestClosure = Provider<Target>.defaultRequestMapping,
        stubClosure: @escaping StubClosure = Provider<Target>.neverStub,
        callbackQueue: DispatchQueue? = nil,
        transport: any HTTPTransport = URLSessionTransport(),
        retryPolicy: RetryPolicy? = nil,
        plugins: [any PluginType] = [],
        trackInflights: Bool = false,
        maxRequestsPerHost: Int? = nil
    ) {
        self.auth = auth
        self.refreshPolicy = refreshPolicy
        // One session signs: `auth`. A signing plugin given (or passed among `plugins`) lends
        // its settings; the stage signs before every plugin's `prepare`.
        let reauthentication = ReauthenticationInterceptor(
            auth: auth, refreshPolicy: refreshPolicy,
            settings: authPlugin ?? plugins.lazy.compactMap { $0 as? AuthPlugin }.first)
        self.reauthentication = reauthentication
        super.init(
            configuration: Configuration(
                endpointClosure: endpointClosure, requestClosure: requestClosure, stubClosure: stubClosure,
                callbackQueue: callbackQueue, transport: transport, retryPolicy: retryPolicy,
                plugins: plugins.filter { !($0 is AuthPlugin) }, trackInflights: trackInflights,
                maxRequestsPerHost: maxRequestsPerHost,
                signing: (plugin: reauthentication.signing, stage: reauthentication)))
    }

    /// Sends `target` through ``reauthentication``: on a rejected token, refreshes once
    /// (shared with every concurrent request) and replays, at most
    /// ``RefreshPolicy/maxReplays`` times.
    ///
    /// Like ``Provider/request(_:)``, it runs on the caller's actor. A request that arrives
    /// while the token is being renewed waits for the renewal first, before anything is built,
    /// and is signed with the token the renewal handed it.
    ///
    /// - Throws: the request's ``CourierError``; ``CourierError/authentication(_:)`` when
    ///   the refresh fails (``AuthenticationError/sessionExpired`` when the user must sign
    ///   in again); ``CourierError/cancelled``.
    nonisolated(nonsending) open override func request(_ target: Target) async throws(CourierError) -> Response {
        let authorization = (target as any TargetType).resolvedAuthorizationType
        // A request that arrives while the token is being renewed waits here, before anything
        // is built: this frame holds the target and little else, instead of the whole call (the
        // endpoint, the URLRequest, every frame down to the signing stage) — see
        // BENCHMARKS.md, "Requests queued behind a slow refresh".
        var renewal: TokenHandoff?
        if authorization != nil, auth.isRenewing {
            renewal = await auth.waitForRenewal(minimumValidity: reauthentication.signing.refreshLeeway)
            // A cancelled wait is left to the pipeline, which reports it as for any cancelled
            // request.
            if case .failure(.cancelled)? = renewal?.outcome { renewal = nil }
        }
        return try await request(target, authorization: authorization, renewal: renewal)
    }

    /// Builds the call for `target`, with the renewal it waited for, and sends it. Never
    /// inlined: its frame, which holds the call, exists only once the request no longer waits
    /// for a renewal.
    @inline(never)
    nonisolated(nonsending) private func request(
        _ target: Target, authorization: AuthorizationType?, renewal: TokenHandoff?
    ) async throws(CourierError) -> Response {
        var call = makeCall(for: target, authorizationType: authorization)
        if let renewal {
            call.context.renewal = RequestContext.Renewal(session: ObjectIdentifier(auth), handoff: renewal)
        }
        return try await send(&call)
    }
}
