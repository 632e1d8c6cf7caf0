import Foundation

/// Everything one call of ``Provider/request(_:)`` knows about its request, worked out once,
/// on the caller's actor, and carried through the pipeline: the first attempt, the retries
/// and the token replays all read it instead of asking the target again.
///
/// The part the stages around the send see is ``context`` (a ``RequestContext``); the rest is
/// what the pipeline itself needs for each attempt.
///
/// It holds the target, which may be isolated to the caller's actor, so it is not `Sendable`
/// and never leaves the request functions (which run on the caller's actor). It is not
/// generic: what needs the target's own type (the endpoint and stub closures) has run by the
/// time it exists, and a generic struct would cost a metadata look-up wherever it goes.
struct RequestCall {
    /// The endpoint every attempt is built from (the endpoint closure runs once per call),
    /// its method and headers checked once.
    let endpoint: Endpoint
    /// Why the endpoint cannot be sent, when its method or a header is invalid: the call
    /// fails with it before anything is sent.
    let endpointError: CourierError?
    /// The endpoint's host, lowercased (`""` when it has none): the key of
    /// ``Provider/maxRequestsPerHost``, worked out only for a provider that has one.
    let host: String
    /// How the call is answered: the network or a stub.
    let stub: StubBehavior
    /// Which status codes count as success.
    let validation: ValidationType
    /// What the stages around the send are told: the target, how it is signed, whether it may
    /// be sent again, and what the stages record (retries, replays, the credential).
    var context: RequestContext
    /// Reports the transfer's progress, for the progress and completion forms.
    var progress: ProgressContext.Report?

    /// - Parameters:
    ///   - target: the target, boxed.
    ///   - authorizationType: how the target is signed (its `authorizationType`, read once by
    ///     whoever makes the call).
    ///   - endpoint: the target's endpoint.
    ///   - gated: whether the provider limits calls per host (no need for the host otherwise).
    ///   - stub: how the target is stubbed.
    ///   - validation: the target's validation.
    init(
        target: any TargetType, authorizationType: AuthorizationType?, endpoint: Endpoint, gated: Bool,
        stub: StubBehavior, validation: ValidationType
    ) {
        var endpoint = endpoint
        do {
            try endpoint.checkForSending()
            self.endpointError = nil
        } catch {
            self.endpointError = error
        }
        self.endpoint = endpoint
        self.host = gated ? endpoint.host : ""
        self.stub = stub
        self.validation = validation
        self.context = RequestContext(
            target: target, authorizationType: authorizationType, isIdempotent: target.resolvedIsIdempotent,
            task: endpoint.task)
    }
}

extension Endpoint {
    /// The host, lowercased (`""` when there is none).
    var host: String {
        (parsedURL ?? URL(string: url))?.host?.lowercased() ?? ""
    }
}
