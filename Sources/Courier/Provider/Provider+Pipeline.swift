import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One plugin's `prepare`, as the pipeline runs it: an ``AuthPlugin`` signs through the call
/// so that the call knows which token signed it; any other plugin prepares as usual.
enum PreparationStep: Sendable {
    case plugin(any PluginType)
    case signing(AuthPlugin)

    init(_ plugin: any PluginType) {
        if let signing = plugin as? AuthPlugin {
            self = .signing(signing)
        } else {
            self = .plugin(plugin)
        }
    }
}

// The request path. Every function here that takes a call runs on the caller's actor
// (`nonisolated(nonsending)`), where the target may be read; the transport and the disk work
// of an upload run off it, and see only Sendable values.
extension Provider {
    /// The call for `target`: its endpoint, stubbing and the facts every attempt needs,
    /// worked out once.
    ///
    /// - Parameter authorization: how the target is signed, when the caller worked it out
    ///   already (`nil` to work it out here).
    func makeCall(for target: Target, authorization: AuthorizationType?? = nil) -> RequestCall {
        RequestCall(
            erased: target, authorization: authorization, signs: signs, endpoint: endpointClosure(target),
            gated: hostGate != nil, stub: stubClosure(target), validation: target.validationType)
    }

    /// Sends `call`: shared with an identical call in flight (``trackInflights``), with the
    /// progress of the completion or stream form that made it, with the retries.
    nonisolated(nonsending) final func send(_ call: inout RequestCall) async throws(CourierError)
        -> Response
    {
        if let tracker = ProgressContext.current {
            call.progress = tracker.report
            // Progress belongs to this request's own transfer: the plugins run without it, so a
            // request that a plugin makes (or a task it starts) never reports into it.
            let result = await ProgressContext.$current.withValue(nil) { () async -> Result<Response, CourierError> in
                await self.attemptsResult(&call)
            }
            return try result.get()
        }
        if let inflights {
            let identity = call.endpoint.identity
            if identity.isShareable {
                let outcome = await sharedAttempts(call, identity: identity, inflights: inflights)
                call.signing = outcome.signing
                return try outcome.result.get()
            }
        }
        return try await attempts(&call)
    }

    /// The attempts of `call`, shared with every identical call in flight. The shared call
    /// runs in a task isolated to the caller's actor, so that it may use the target there;
    /// it outlives a caller that cancels, and is cancelled when every caller has.
    private func sharedAttempts(
        _ call: RequestCall, identity: EndpointIdentity, inflights: InflightRequests,
        isolation: isolated (any Actor)? = #isolation
    ) async -> InflightRequests.Outcome {
        await inflights.result(for: identity, signing: call.signing) {
            Task {
                _ = isolation  // The task runs on the caller's actor, where the target belongs.
                var call = call
                let result = await self.attemptsResult(&call)
                return InflightRequests.Outcome(result: result, signing: call.signing)
            }
        }
    }

    nonisolated(nonsending) private func attemptsResult(_ call: inout RequestCall) async -> Result<
        Response, CourierError
    > {
        do throws(CourierError) {
            return .success(try await attempts(&call))
        } catch {
            return .failure(error)
        }
    }

    /// The attempts of one call — the first and the ``retryPolicy``'s retries — holding a slot
    /// of ``maxRequestsPerHost`` unless the current task holds one for the host already.
    nonisolated(nonsending) final func attempts(_ call: inout RequestCall) async throws(CourierError)
        -> Response
    {
        // A branch, not a wrapper function: an ungated request then keeps one async frame
        // less alive while it waits (for a refresh, say).
        if let hostGate, !hostGate.isHeldByCurrentTask(call.host) {
            return try await withHostSlot(hostGate, for: &call) { (call) async throws(CourierError) in
                try await self.retrying(&call)
            }
        }
        return try await retrying(&call)
    }

    /// The first attempt and the ``retryPolicy``'s retries.
    nonisolated(nonsending) private func retrying(_ call: inout RequestCall) async throws(CourierError)
        -> Response
    {
        guard let retryPolicy else {
            return try await attempt(&call).get()
        }
        while true {
            let result = await attempt(&call)
            guard call.isIdempotent, call.isReplayable,
                let delay = retryPolicy.delay(after: result, retries: call.retries)
            else {
                return try result.get()
            }
            call.retries += 1
            do {
                try await retryPolicy.sleep(delay)
            } catch {
                throw .cancelled
            }
            if Task.isCancelled { throw .cancelled }
        }
    }

    /// One pass through the pipeline: every plugin hook runs once.
    nonisolated(nonsending) final func attempt(_ call: inout RequestCall) async -> Result<
        Response, CourierError
    > {
        let prepared: URLRequest
        // What signs this attempt is recorded afresh: a credential is the one that signed what
        // was last sent.
        call.signing.credential = nil
        do {
            prepared = try await prepareRequest(&call)
        } catch {
            // Moya tells the plugins about a request cancelled before it left; other failures
            // to build the request reach the caller only.
            guard error.isCancelled else { return .failure(error) }
            return notifyUnsent(.failure(.cancelled), target: call.erased)
        }
        var request = prepared
        let span = telemetry.map { AttemptTelemetry($0, request: &request, call: call) }
        notifyWillSend(request, target: call.erased)
        let result = await perform(request, call: call)
        span?.end(result)
        return finish(result, call: call)
    }

    /// The request closure, then every plugin's `prepare`, then the one check of what will be
    /// sent.
    nonisolated(nonsending) private func prepareRequest(_ call: inout RequestCall) async throws(CourierError)
        -> URLRequest
    {
        if let endpointError = call.endpointError { throw endpointError }
        var request: URLRequest
        do {
            request = try await requestClosure(call.endpoint)
            for step in preparation {
                switch step {
                case .plugin(let plugin):
                    request = try await plugin.prepare(request, target: call.erased)
                case .signing(let signing):
                    request = try await signing.sign(request, target: call.erased, signing: &call.signing)
                }
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
    private func finish(_ result: Result<Response, CourierError>, call: borrowing RequestCall)
        -> Result<Response, CourierError>
    {
        var result = result
        if case .success(let response) = result, !call.validation.accepts(response.statusCode) {
            result = .failure(.statusCode(response.rejected(by: call.validation)))
        }
        for plugin in plugins {
            plugin.didReceive(result, target: call.erased)
        }
        for plugin in plugins {
            result = plugin.process(result, target: call.erased)
        }
        return result
    }

    nonisolated(nonsending) private func perform(_ request: URLRequest, call: borrowing RequestCall) async
        -> Result<Response, CourierError>
    {
        switch call.stub {
        case .never:
            return await sendForReal(
                request, task: call.endpoint.task, progress: call.progress, isIdempotent: call.isIdempotent)
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
        _ request: URLRequest, task: RequestTask, progress: ProgressContext.Report?, isIdempotent: Bool
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
                    isIdempotent: isIdempotent))
            return .success(response)
        } catch {
            return .failure(.transport(error, request: body.request))
        }
    }
}
