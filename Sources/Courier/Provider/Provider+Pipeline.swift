import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The request path. Every function here that takes a call runs on the caller's actor
// (`nonisolated(nonsending)`), where the target may be read; the transport and the disk work
// of an upload run off it, and see only Sendable values.
//
// One call: `send` (shared with an identical call, with progress) → `run` (the host slot,
// taken here and nowhere else) → the request closure → the stages around the send
// (`intercepting`: re-authentication, retries, the plugins' interceptors, outermost first) →
// `attempt`, once per call of the innermost `next` (the four Moya hooks and the transport).
extension Provider {
    /// The call for `target`: its endpoint, stubbing and the facts every attempt needs,
    /// worked out once.
    ///
    /// - Parameter authorizationType: how the target is signed, read by the caller (once).
    func makeCall(for target: Target, authorizationType: AuthorizationType?) -> RequestCall {
        RequestCall(
            target: target, authorizationType: authorizationType, endpoint: endpointClosure(target),
            gated: configuration.hostGate != nil, stub: stubClosure(target), validation: target.validationType)
    }

    /// Sends `call`: shared with an identical call in flight (``trackInflights``), with the
    /// progress of the completion or stream form that made it.
    nonisolated(nonsending) final func send(_ call: inout RequestCall) async throws(CourierError)
        -> Response
    {
        if let tracker = ProgressContext.current {
            call.progress = tracker.report
            // Progress belongs to this request's own transfer: the plugins run without it, so a
            // request that a plugin makes (or a task it starts) never reports into it.
            let result = await ProgressContext.$current.withValue(nil) { () async -> Result<Response, CourierError> in
                await self.runResult(call)
            }
            return try result.get()
        }
        if let inflights = configuration.inflights {
            let identity = call.endpoint.identity
            if identity.isShareable {
                return try await sharedRun(call, identity: identity, inflights: inflights).get()
            }
        }
        return try await run(call)
    }

    /// The run of `call`, shared with every identical call in flight. The shared call runs in
    /// a task isolated to the caller's actor, so that it may use the target there; it outlives
    /// a caller that cancels, and is cancelled when every caller has. Its stages (a token
    /// refresh and replay included) run once, for all its callers.
    private func sharedRun(
        _ call: RequestCall, identity: EndpointIdentity, inflights: InflightRequests,
        isolation: isolated (any Actor)? = #isolation
    ) async -> Result<Response, CourierError> {
        await inflights.result(for: identity) {
            Task {
                _ = isolation  // The task runs on the caller's actor, where the target belongs.
                return await self.runResult(call)
            }
        }
    }

    nonisolated(nonsending) private func runResult(_ call: RequestCall) async -> Result<Response, CourierError> {
        do throws(CourierError) {
            return .success(try await run(call))
        } catch {
            return .failure(error)
        }
    }

    /// The whole call — every stage around the send and every attempt — holding a slot of
    /// ``maxRequestsPerHost`` for its host: the one place a call takes its slot. (A call made
    /// from inside another that holds the host's slot — a plugin's own request — runs in the
    /// slot of the call it is part of.)
    nonisolated(nonsending) final func run(_ call: RequestCall) async throws(CourierError) -> Response {
        // A branch, not a wrapper function: an ungated request then keeps one async frame
        // less alive while it waits (for a refresh, say).
        if let hostGate = configuration.hostGate, !hostGate.isHeldByCurrentTask(call.host) {
            return try await withHostSlot(hostGate, for: call) { () async throws(CourierError) in
                try await self.built(call)
            }
        }
        return try await built(call)
    }

    /// Builds the request (the request closure, once per call), then hands it to the stages.
    nonisolated(nonsending) private func built(_ call: RequestCall) async throws(CourierError) -> Response {
        if let endpointError = call.endpointError { throw endpointError }
        let request: URLRequest
        do {
            request = try await requestClosure(call.endpoint)
        } catch {
            let error = CourierError(error)
            // Moya tells the plugins about a request cancelled before it left; other failures
            // to build the request reach the caller only.
            guard error.isCancelled else { throw error }
            return try notifyUnsent(.failure(.cancelled), target: call.context.target).get()
        }
        return try await intercepting(from: 0, request, call.context, call: call)
    }

    /// The stages around the send from `index` on, the innermost `next` being one attempt.
    nonisolated(nonsending) private func intercepting(
        from index: Int, _ request: URLRequest, _ context: RequestContext, call: RequestCall
    ) async throws(CourierError) -> Response {
        let interceptors = configuration.interceptors
        guard index < interceptors.count else {
            return try await attemptAnsweringNonce(request, context: context, call: call).get()
        }
        return try await interceptors[index].intercept(request, context: context) {
            (request, context) async throws(CourierError) -> Response in
            try await self.intercepting(from: index + 1, request, context, call: call)
        }
    }

    /// One attempt; a DPoP session's token request (from its refresh, acquire or sign-in) that
    /// the token endpoint refused for want of a nonce goes again once, with it. A function of
    /// its own, so that its locals stay off the frame of `intercepting`, which every request
    /// waiting inside a stage keeps.
    nonisolated(nonsending) private func attemptAnsweringNonce(
        _ request: URLRequest, context: RequestContext, call: RequestCall
    ) async -> Result<Response, CourierError> {
        let result = await attempt(request, context: context, call: call)
        guard let signing = DPoPTokenRequest.current, let nonce = signing.signer.observe(result), context.isReplayable
        else {
            return result
        }
        // With the nonce of this challenge, not the origin's latest (see `DPoPSigner.observe`).
        let again = await attempt(request, context: context, call: call, nonce: nonce)
        signing.signer.observe(again, answering: nonce)
        return again
    }

    /// One pass through the pipeline: every plugin hook runs once. `nonce`: the DPoP nonce a
    /// token request's proof carries (the challenge's, for a retry); `nil`, the origin's last.
    nonisolated(nonsending) private func attempt(
        _ request: URLRequest, context: RequestContext, call: RequestCall, nonce: String? = nil
    ) async -> Result<Response, CourierError> {
        var prepared: URLRequest
        var redirectSigner: TransportRequest.RedirectSigner?
        do {
            prepared = try await prepareRequest(request, target: context.target)
            if let signing = DPoPTokenRequest.current, prepared.value(forHTTPHeaderField: "DPoP") == nil {
                // Signed last, so the proof's htm and htu are the request's as sent.
                prepared = try await signing.signer.withProof(
                    prepared, accessToken: nil, builder: signing.builder, nonce: nonce)
                redirectSigner = { next, redirect in
                    await signing.signer.redirected(next, after: redirect, accessToken: nil, builder: signing.builder)
                }
            } else if context.credential?.session.dpop != nil, let credential = context.credential {
                redirectSigner = Self.dpopRedirectSigner(for: credential)
            }
        } catch {
            // Moya tells the plugins about a request cancelled before it left; other failures
            // to build the request reach the caller only.
            guard error.isCancelled else { return .failure(error) }
            return notifyUnsent(.failure(.cancelled), target: context.target)
        }
        notifyWillSend(prepared, target: context.target)
        let result = await perform(
            prepared, call: call, isIdempotent: context.isIdempotent, redirectSigner: redirectSigner)
        return finish(result, validation: call.validation, target: context.target)
    }

    /// The proof of each same-origin redirect hop of a request signed with a DPoP-bound token
    /// (RFC 9449 §4.3: one proof per request, with its own URL and method); `nil` for any other
    /// credential. Only DPoP sessions get here: a bearer request reads one `nil`.
    @inline(never)
    private static func dpopRedirectSigner(for credential: SignedCredential) -> TransportRequest.RedirectSigner? {
        guard let dpop = credential.session.dpop, DPoPSigner.isBound(credential.token),
            let builder = try? dpop.builder(for: credential.token)
        else { return nil }
        let accessToken = credential.token.accessToken
        return { next, redirect in
            await dpop.redirected(next, after: redirect, accessToken: accessToken, builder: builder)
        }
    }

    /// Every plugin's `prepare`, then the one check of what will be sent.
    nonisolated(nonsending) private func prepareRequest(_ request: URLRequest, target: any TargetType)
        async throws(CourierError) -> URLRequest
    {
        var request = request
        do {
            for plugin in configuration.hooks {
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
        for plugin in configuration.hooks {
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
            for plugin in configuration.hooks {
                plugin.didReceive(result, target: target)
            }
            for plugin in configuration.hooks {
                result = plugin.process(result, target: target)
            }
            return result
        }
    }

    /// Validation, then every plugin's `didReceive` and `process`.
    @inline(never)
    private func finish(
        _ result: Result<Response, CourierError>, validation: ValidationType, target: any TargetType
    ) -> Result<Response, CourierError> {
        var result = result
        if case .success(let response) = result, !validation.accepts(response.statusCode) {
            result = .failure(.statusCode(response.rejected(by: validation)))
        }
        for plugin in configuration.hooks {
            plugin.didReceive(result, target: target)
        }
        for plugin in configuration.hooks {
            result = plugin.process(result, target: target)
        }
        return result
    }

    nonisolated(nonsending) private func perform(
        _ request: URLRequest, call: RequestCall, isIdempotent: Bool, redirectSigner: TransportRequest.RedirectSigner?
    ) async -> Result<Response, CourierError> {
        switch call.stub {
        case .never:
            return await sendForReal(
                request, task: call.endpoint.task, progress: call.progress, isIdempotent: isIdempotent,
                redirectSigner: redirectSigner)
        case .immediate:
            return StubResponder.respond(to: request, endpoint: call.endpoint)
        case .delayed(let seconds):
            do {
                try await Delay.sleep(seconds: seconds)
            } catch {
                return .failure(.cancelled)
            }
            return StubResponder.respond(to: request, endpoint: call.endpoint)
        }
    }

    /// Sends `request` through the transport, which does its work off the caller's actor (as
    /// does writing a multipart body). A multipart body written to a temporary file for this
    /// attempt is removed when the attempt ends, however it ends.
    nonisolated(nonsending) private func sendForReal(
        _ request: URLRequest, task: RequestTask, progress: ProgressContext.Report?, isIdempotent: Bool,
        redirectSigner: TransportRequest.RedirectSigner?
    ) async -> Result<Response, CourierError> {
        let body: PreparedBody
        if let inline = PreparedBody.inline(for: task, request: request) {
            body = inline
        } else {
            do {
                body = try await PreparedBody.prepare(for: task, request: request)
            } catch {
                return .failure(error)
            }
        }
        defer { body.cleanUp() }
        do {
            // Inside a session's refresh closure: the last moment to find that the lease was
            // lost (this process was stopped past it), before a refresh token leaves.
            try await RefreshLeaseGuard.check()
        } catch {
            return .failure(.underlying(error, nil))
        }
        do {
            let response = try await transport.send(
                TransportRequest(
                    urlRequest: body.request, body: body.transportBody,
                    downloadDestination: task.downloadDestination, progress: progress,
                    isIdempotent: isIdempotent, redirectSigner: redirectSigner))
            return .success(response)
        } catch {
            return .failure(.transport(error, request: body.request))
        }
    }
}
