import Foundation

/// Everything one call of ``Provider/request(_:)`` knows about its request, worked out once,
/// on the caller's actor, and carried through the pipeline: the first attempt, the retries
/// and the token replays all read it instead of asking the target again.
///
/// It holds the target, which may be isolated to the caller's actor, so it is not
/// `Sendable` and never leaves the request functions (which run on the caller's actor). It is
/// not generic: what needs the target's own type (the endpoint and stub closures) has run by
/// the time it exists, and a generic struct would cost a metadata look-up wherever it goes.
struct RequestCall {
    /// The target, boxed once, for the plugins' hooks.
    let erased: any TargetType
    /// The endpoint every attempt is built from (the endpoint closure runs once per call),
    /// its method and headers checked once.
    let endpoint: Endpoint
    /// Why the endpoint cannot be sent, when its method or a header is invalid: every
    /// attempt fails with it before anything is sent.
    let endpointError: CourierError?
    /// The endpoint's host, lowercased (`""` when it has none): the key of
    /// ``Provider/maxRequestsPerHost``, worked out only for a provider that has one.
    let host: String
    /// How the call is answered: the network or a stub.
    let stub: StubBehavior
    /// Which status codes count as success.
    let validation: ValidationType
    /// Whether the call may be sent more than once (``RetryableTarget``, else its method).
    let isIdempotent: Bool
    /// Whether what is sent can be sent again: a one-shot stream part cannot.
    var isReplayable: Bool { endpoint.task.isReplayable }
    /// What signing needs to know and what it did.
    var signing: SigningState
    /// How many times the retry policy has sent it again.
    var retries = 0
    /// How many times it was replayed after a token refresh.
    var replays = 0
    /// Reports the transfer's progress, for the progress and completion forms.
    var progress: ProgressContext.Report?

    /// - Parameters:
    ///   - erased: the target, boxed.
    ///   - authorization: how the target is signed: `.some` when the caller worked it out
    ///     already, `nil` to work it out here.
    ///   - signs: whether anything will sign the call (no need to ask the target otherwise).
    ///   - endpoint: the target's endpoint.
    ///   - gated: whether the provider limits calls per host (no need for the host otherwise).
    ///   - stub: how the target is stubbed.
    ///   - validation: the target's validation.
    init(
        erased: any TargetType, authorization: AuthorizationType??, signs: Bool, endpoint: Endpoint, gated: Bool,
        stub: StubBehavior, validation: ValidationType
    ) {
        self.erased = erased
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
        self.isIdempotent = erased.resolvedIsIdempotent
        self.signing = SigningState(authorization: authorization ?? (signs ? erased.resolvedAuthorizationType : nil))
    }
}

/// The part of a call that signing reads and writes: whether the target is signed at all,
/// which token signed the last attempt, and the token to use for a replay.
///
/// ``AuthPlugin`` records the credential here instead of in a header that someone would have
/// to parse back, and ``RefreshableProvider`` compares it, not header strings, to decide
/// whether a rejected request needs a refresh.
struct SigningState: Sendable {
    /// How the target is signed; `nil` (login and token endpoints, third-party hosts) never.
    /// Decided once per call: a target whose `authorizationType` is `nil` is never signed.
    let authorization: AuthorizationType?
    /// The token that signed the last attempt, and the session it came from.
    var credential: Credential?
    /// The token a refresh returned for the replay: the replay is signed with it instead of
    /// asking the session again.
    var replacement: Credential?
    /// A renewal that failed while the call waited for it, before it was built: signing
    /// fails the first attempt with it instead of starting another renewal.
    var renewalFailure: RenewalFailure?

    /// A token and the session it belongs to.
    struct Credential: Sendable {
        let session: ObjectIdentifier
        let token: OAuthToken
    }

    /// How a session's renewal failed.
    struct RenewalFailure: Sendable {
        let session: ObjectIdentifier
        let error: AuthenticationError
    }

    init(authorization: AuthorizationType?) {
        self.authorization = authorization
    }
}

extension Endpoint {
    /// The host, lowercased (`""` when there is none).
    var host: String {
        (parsedURL ?? URL(string: url))?.host?.lowercased() ?? ""
    }
}
