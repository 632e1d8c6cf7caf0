import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A plugin with a fifth hook that runs *around* the send: it receives the request and a
/// `next` that sends it, and may call `next` zero, one or several times — to retry, to
/// refresh a credential and resume, to answer from a cache, or to time the exchange.
///
/// ```swift
/// /// Sends a request once more when the server was briefly unavailable.
/// struct RetryOnceOn503: RequestInterceptor {
///     func intercept(
///         _ request: URLRequest, context: RequestContext, next: RequestInterceptor.Next
///     ) async throws(CourierError) -> Response {
///         let response = try await next(request, context)
///         guard response.statusCode == 503, context.isIdempotent, context.isReplayable else { return response }
///         var again = context
///         again.retries += 1
///         return try await next(request, again)
///     }
/// }
///
/// let provider = Provider<GitHub>(plugins: [RetryOnceOn503(), NetworkLoggerPlugin()])
/// ```
///
/// Put it among a provider's `plugins` like any plugin; its four Moya hooks (if it implements
/// them) run as every plugin's do. What `next` does is one attempt of the request through the
/// rest of the pipeline:
///
/// 1. the interceptors after this one, in the order of `plugins`;
/// 2. every plugin's `prepare`, then the check of the method and headers, then every
///    plugin's `willSend`;
/// 3. the transport (or the stub);
/// 4. validation (a status the target's ``TargetType/validationType`` refuses is thrown as
///    ``CourierError/statusCode(_:)``), every plugin's `didReceive`, then every plugin's
///    `process`; what `process` left is what `next` returns or throws.
///
/// So the four Moya hooks keep their order, once per call of `next`, and a request sent
/// twice runs them twice (a retry is a new attempt: `prepare` runs again, as in Moya).
/// Interceptors wrap one another in the order of `plugins`: the first is the outermost.
/// Around them all, a provider puts its own stages — on a ``RefreshableProvider`` the
/// re-authentication stage (``ReauthenticationInterceptor``, which signs the request before
/// any plugin sees it), then the ``Provider/retryPolicy``'s retries (``RetryPolicy``) — and a
/// ``TelemetryPlugin`` is an interceptor among yours, so that each retry and replay is a span.
///
/// The request an interceptor receives is the one the provider's request closure built (and
/// the interceptors before it changed); the `context` says what the provider worked out once
/// for the call. Pass `next` the request and context to send: a changed copy, or the ones you
/// were given. Not calling `next` answers the call without sending anything: return a
/// ``Response`` or throw a ``CourierError``.
///
/// Like `prepare`, it runs on the caller's actor (`nonisolated(nonsending)`), where the target
/// may be read.
public protocol RequestInterceptor: PluginType {
    /// Sends the rest of the pipeline once for the request and context given; see
    /// ``RequestInterceptor``.
    typealias Next = nonisolated(nonsending) (URLRequest, RequestContext) async throws(CourierError) -> Response

    /// Returns the response for `request`, calling `next` to send it (zero, one or several
    /// times).
    ///
    /// - Parameters:
    ///   - request: the request as the request closure built it, changed by the interceptors
    ///     before this one.
    ///   - context: what the provider knows of this call.
    ///   - next: sends a request through the rest of the pipeline once.
    /// - Throws: a ``CourierError``: what `next` threw, or a failure of the interceptor's own.
    nonisolated(nonsending) func intercept(_ request: URLRequest, context: RequestContext, next: Next)
        async throws(CourierError) -> Response
}

/// What a provider worked out once for one call of ``Provider/request(_:)``, handed to each
/// ``RequestInterceptor`` with the request, and by an interceptor to the `next` it calls.
///
/// It holds the target, which may be isolated to the caller's actor, so it is not `Sendable`:
/// use it in ``RequestInterceptor/intercept(_:context:next:)`` (which runs on that actor),
/// not in a task of your own.
public struct RequestContext {
    /// The target the call is for.
    public let target: any TargetType
    /// How the target is signed (its ``TargetType/authorizationType``, read once for the
    /// call); `nil` for a target that is never signed (a login or token endpoint, a
    /// third-party host).
    public let authorizationType: AuthorizationType?
    /// Whether the call may be sent more than once: a ``RetryableTarget`` that says so, or an
    /// idempotent method.
    public let isIdempotent: Bool
    /// Whether what is sent can be sent again now (a multipart stream part that an attempt has
    /// read cannot): an interceptor that calls `next` again checks it first, after the
    /// attempt it would repeat.
    public var isReplayable: Bool { task.isReplayable }
    /// The endpoint's task, whose body tells whether it can be sent again.
    private let task: RequestTask
    /// How many times the call was sent again because of a transient failure. An interceptor
    /// that retries adds one before it calls `next` again (telemetry reports the sum of this
    /// and ``replays`` as the attempt's resend count).
    public var retries = 0
    /// How many times the call was sent again with a new credential (a token replay).
    public var replays = 0
    /// The token that signs this attempt and the session it comes from, when the
    /// re-authentication stage signed it: the credential to refresh away from if the server
    /// rejects it.
    public internal(set) var credential: SignedCredential?
    /// What the server answered when it rejected the last attempt's credential, for the
    /// attempt that replays it; `nil` on a first attempt.
    public internal(set) var challenge: CredentialRejection?
    /// Whether this attempt is the one a DPoP session sends again because the server asked for
    /// a nonce (`use_dpop_nonce`): not a retry nor a replay (telemetry counts it as
    /// ``TelemetryCounter/dpopNonceRetries``).
    public internal(set) var isDPoPNonceRetry = false
    /// The token (or the failure) of the renewal the call waited for before it was built, for
    /// the re-authentication stage of `session` to sign the first attempt with: the one
    /// hand-off from the session to a request that waited.
    var renewal: Renewal?

    /// A renewal's outcome, handed to the call that waited for it.
    struct Renewal {
        let session: ObjectIdentifier
        let handoff: TokenHandoff
    }

    init(target: any TargetType, authorizationType: AuthorizationType?, isIdempotent: Bool, task: RequestTask) {
        self.target = target
        self.authorizationType = authorizationType
        self.isIdempotent = isIdempotent
        self.task = task
    }
}

/// A token that signed a request, and the session it came from.
public struct SignedCredential: Sendable {
    /// The session whose token it is.
    public let session: AuthSession
    /// The token.
    public let token: OAuthToken
}

/// A server's rejection of the credential a request carried: the response, and the
/// challenges of its `WWW-Authenticate` header, read per scheme.
public struct CredentialRejection: Sendable {
    /// The response that rejected the credential.
    public let response: Response
    /// The `WWW-Authenticate` header as sent, if any (such as `Bearer error="invalid_token"`).
    public var wwwAuthenticate: String? {
        response.response?.value(forHTTPHeaderField: "WWW-Authenticate")
    }
    /// The header's challenges, one per scheme the server named (`Bearer`, `DPoP` …): read
    /// `challenges.first(scheme: "Bearer")?["error"]`, never the raw text.
    public var challenges: [AuthenticationChallenge] {
        AuthenticationChallenge.parse(wwwAuthenticateOf: response.response)
    }
}
