import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Re-authentication as one stage around the send: it signs the request with the session's
/// token, sends it, and when the server rejects that token (401, or what its
/// ``RefreshPolicy`` says) refreshes **once** for every request rejected together and replays
/// the request signed with the new token; a replay rejected again is returned as it is.
///
/// ``RefreshableProvider`` puts this stage around every call, outside every other stage and
/// plugin, so the plugins see the signed request. It is also a ``RequestInterceptor`` you can
/// use yourself: among a plain ``Provider``'s plugins, or inside an interceptor of your own
/// that wraps it.
///
/// ```swift
/// /// Says when Courier replays a request with a refreshed token.
/// struct ReplayLogging: RequestInterceptor {
///     let inner: ReauthenticationInterceptor
///
///     func intercept(
///         _ request: URLRequest, context: RequestContext, next: RequestInterceptor.Next
///     ) async throws(CourierError) -> Response {
///         try await inner.intercept(request, context: context) { request, context async throws(CourierError) in
///             if let challenge = context.challenge {
///                 print("replaying after a \(challenge.response.statusCode)")
///             }
///             return try await next(request, context)
///         }
///     }
/// }
/// ```
///
/// What it decides, in order, for one call:
/// - a target whose ``RequestContext/authorizationType`` is `nil`, or a request to a host the
///   signing settings do not allow, passes through unsigned and is never refreshed for;
/// - the first attempt is signed with the token the call waited for, if it waited for a
///   renewal before it was built (the one hand-off from the session), else with
///   ``AuthSession/validToken(minimumValidity:)`` at the signing leeway;
/// - the credential that signed the attempt goes to `next` in ``RequestContext/credential``;
/// - an answer from the token's own origin that the policy calls an authentication failure
///   (as a response or as ``CourierError/statusCode(_:)``), while replays are left and the
///   request can be sent again, is a rejection: ``AuthSession/refresh(rejecting:)`` with that
///   token (single-flight: joined, or answered at once when another request refreshed
///   already), then a replay signed with the token it returns, with the rejection in
///   ``RequestContext/challenge``;
/// - anything else is the answer; a failed refresh is thrown
///   (``AuthenticationError/sessionExpired`` when the user must sign in again).
public struct ReauthenticationInterceptor: RequestInterceptor {
    /// The settings requests are signed with: the session (``AuthPlugin/auth``), the leeway
    /// and the allowed hosts.
    public let signing: AuthPlugin
    /// When a response counts as a rejected token, and how replays work.
    public let refreshPolicy: RefreshPolicy

    /// The session whose token signs requests and is refreshed.
    public var auth: AuthSession { signing.auth }

    /// Creates the stage.
    ///
    /// - Parameters:
    ///   - auth: the session whose token signs requests and is refreshed.
    ///   - refreshPolicy: what counts as a rejected token (default: 401), how many replays.
    ///   - settings: a signing plugin whose ``AuthPlugin/refreshLeeway`` and
    ///     ``AuthPlugin/allowedHosts`` to use; its session is ignored: `auth` signs.
    public init(auth: AuthSession, refreshPolicy: RefreshPolicy = .default, settings: AuthPlugin? = nil) {
        self.signing =
            settings.map { AuthPlugin(auth: auth, refreshLeeway: $0.refreshLeeway, allowedHosts: $0.allowedHosts) }
            ?? AuthPlugin(auth: auth)
        self.refreshPolicy = refreshPolicy
    }

    /// Signs, sends, and refreshes and replays on a rejected token; see
    /// ``ReauthenticationInterceptor``.
    ///
    /// - Throws: what `next` threw; ``CourierError/authentication(_:)`` when no token can be
    ///   had or the refresh fails; ``CourierError/cancelled``.
    public nonisolated(nonsending) func intercept(_ request: URLRequest, context: RequestContext, next: Next)
        async throws(CourierError) -> Response
    {
        guard let authorizationType = context.authorizationType,
            signing.isAllowed(request, target: context.target)
        else {
            return try await next(request, context)
        }
        var context = context
        // The request waits for a token within its own time-out, past the session's
        // `refreshTimeout` if need be (TokenWaitDeadline).
        let deadline = TokenWaitDeadline(timeout: request.timeoutInterval)
        var token = try await firstToken(&context, within: deadline, for: request)
        while true {
            let result = try await send(request, with: &token, as: authorizationType, context: &context, next: next)
            guard let rejection = rejection(in: result, context: context) else {
                return try result.get()
            }
            let rejected = token
            token = try await waiting(within: deadline, for: request) { () async throws(AuthenticationError) in
                try await auth.refresh(rejecting: rejected)
            }
            context.challenge = rejection
            context.replays += 1
            if refreshPolicy.replayDelay > 0 {
                do {
                    try await Delay.sleep(seconds: refreshPolicy.replayDelay)
                } catch {
                    throw .cancelled
                }
            }
        }
    }

    /// One attempt (``signAndSend(_:with:as:context:next:)``); on a DPoP session, one more when
    /// the server wants a nonce. Its own function, so that its locals stay off the frame of
    /// `intercept`, which a request waiting for a refresh keeps.
    nonisolated(nonsending) private func send(
        _ request: URLRequest, with token: inout OAuthToken, as authorizationType: AuthorizationType,
        context: inout RequestContext, next: Next
    ) async throws(CourierError) -> Result<Response, CourierError> {
        let result = try await signAndSend(request, with: &token, as: authorizationType, context: &context, next: next)
        guard let dpop = auth.dpop, let nonce = dpop.observe(result), context.isReplayable else { return result }
        // A server that wants a DPoP nonce refused the request before acting on it: sent
        // again once with the nonce of this challenge (not the origin's latest, which another
        // request's challenge may have set) — not a rejected token, so no refresh, no replay
        // counted, and safe for a POST.
        context.isDPoPNonceRetry = true
        defer { context.isDPoPNonceRetry = false }
        let again = try await signAndSend(
            request, with: &token, as: authorizationType, context: &context, next: next, nonce: nonce)
        dpop.observe(again, answering: nonce)
        return again
    }

    /// `request` signed with `token` (on a DPoP session, a fresh proof), handed to `next` with
    /// the credential in the context. `token` becomes the token that signed it (a DPoP session
    /// whose key was lost signs with the one another process stored, if any).
    nonisolated(nonsending) private func signAndSend(
        _ request: URLRequest, with token: inout OAuthToken, as authorizationType: AuthorizationType,
        context: inout RequestContext, next: Next, nonce: String? = nil
    ) async throws(CourierError) -> Result<Response, CourierError> {
        let signed = try await signing.sign(request, with: token, as: authorizationType, nonce: nonce)
        token = signed.token
        context.credential = SignedCredential(session: auth, token: token)
        do {
            return .success(try await next(signed.request, context))
        } catch {
            return .failure(error)
        }
    }

    /// The token of the first attempt: the one the call was handed after it waited for this
    /// session's renewal (or that renewal's failure), else a valid token from the session.
    nonisolated(nonsending) private func firstToken(
        _ context: inout RequestContext, within deadline: TokenWaitDeadline, for request: URLRequest
    ) async throws(CourierError) -> OAuthToken {
        if let renewal = context.renewal, renewal.session == ObjectIdentifier(auth) {
            context.renewal = nil
            switch renewal.handoff.outcome {
            case .success(let token):
                return token
            case .failure(let error):
                // The renewal outlived the session's refresh time-out: wait again below, within
                // the request's own.
                guard rejoins(after: error) else { throw CourierError(error) }
                if deadline.hasPassed { throw TokenWaitDeadline.timedOut(request) }
            }
        }
        return try await waiting(within: deadline, for: request) { () async throws(AuthenticationError) in
            try await auth.validToken(minimumValidity: signing.refreshLeeway)
        }
    }

    /// `wait`'s token; when it fails because the session's ``AuthSession/refreshTimeout``
    /// passed while the renewal goes on, `wait` again (joining that renewal), until the request's
    /// own time-out has passed: then the request fails with `URLError(.timedOut)`. Each wait
    /// lasts up to `refreshTimeout`.
    nonisolated(nonsending) private func waiting(
        within deadline: TokenWaitDeadline, for request: URLRequest,
        _ wait: () async throws(AuthenticationError) -> OAuthToken
    ) async throws(CourierError) -> OAuthToken {
        while true {
            do {
                return try await wait()
            } catch {
                guard rejoins(after: error) else { throw CourierError(error) }
                if deadline.hasPassed { throw TokenWaitDeadline.timedOut(request) }
            }
        }
    }

    /// Whether a wait that ended with `error` is waited again: the session's refresh time-out
    /// passed while its renewal goes on. Not for a session whose `refreshTimeout` is under
    /// 10 ms (or not positive), whose waits would end at once, again and again.
    private func rejoins(after error: AuthenticationError) -> Bool {
        TokenWaitDeadline.isRefreshTimeout(error) && auth.refreshTimeout >= 0.01
    }

    /// The rejection to refresh for, when `result` says the server rejected the token that
    /// signed the attempt and the request may be replayed; `nil` otherwise. Not inlined, so
    /// that its temporaries stay off the async frame that a request waiting for a refresh
    /// keeps.
    @inline(never)
    private func rejection(in result: Result<Response, CourierError>, context: borrowing RequestContext)
        -> CredentialRejection?
    {
        guard context.replays < refreshPolicy.maxReplays, context.isReplayable else { return nil }
        let response: Response
        switch result {
        case .success(let value): response = value
        case .failure(.statusCode(let value)): response = value
        case .failure: return nil
        }
        guard Self.answeredByTokenOrigin(response), refreshPolicy.isAuthenticationFailure(response) else {
            return nil
        }
        // The token is good but lacks scope (RFC 6750 §3.1): a refresh gives the same scope, so
        // it is the app's step-up signal (`InsufficientScope`), never a refresh or a logout.
        if InsufficientScope(response: response) != nil { return nil }
        // A DPoP server that refused the proof or wants a nonce (again), not the token: a new
        // token would not help, and a nonce challenge is never a refresh.
        if auth.dpop != nil,
            let error = AuthenticationChallenge.parse(wwwAuthenticateOf: response.response).first(scheme: "DPoP")?[
                "error"],
            error == "invalid_dpop_proof" || error == "use_dpop_nonce"
        {
            return nil
        }
        return CredentialRejection(response: response)
    }

    /// Whether the answer came from the origin the token was sent to. A redirect to another
    /// origin drops `Authorization`, so that origin's 401 says nothing about the token:
    /// refreshing for it would burn a refresh (and replay the request) for nothing.
    static func answeredByTokenOrigin(_ response: Response) -> Bool {
        guard let answeredBy = response.response?.url else { return true }
        return !CrossOriginRedirect.isCrossOrigin(from: response.request?.url, to: answeredBy)
    }
}
