import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Decides whether a refresh closure's error means "the refresh token is dead" (end the
/// session) or "try again later" (keep it).
enum RefreshFailureClassifier {
    /// What a refresh closure's error means.
    enum Verdict: Equatable {
        /// The session is over, for this reason.
        case rejected(SessionExpiry)
        /// It may pass: keep the refresh token.
        case transient
    }

    /// What `error` means under OAuth's rule (``SessionEndingRule/oauth``), or, for an error
    /// that a session with a rule of its own has already judged (``RuledRefreshFailure``),
    /// under that rule.
    static func classify(_ error: any Error, date: Date) -> Verdict {
        if let ruled = error as? RuledRefreshFailure {
            if ruled.threwSessionExpired { return .rejected(SessionExpiry(cause: .refreshClosure, date: date)) }
            return ruled.endingResponse.map { .rejected(.rejected(by: $0, date: date)) } ?? .transient
        }
        if threwSessionExpired(error) { return .rejected(SessionExpiry(cause: .refreshClosure, date: date)) }
        guard let response = (error as? CourierError)?.response,
            SessionEndingRule.oauthEndsSession(after: response)
        else { return .transient }
        return .rejected(.rejected(by: response, date: date))
    }

    static func isRejection(_ error: any Error) -> Bool {
        classify(error, date: Date(timeIntervalSince1970: 0)) != .transient
    }

    /// Whether the refresh closure said itself that the session is over.
    static func threwSessionExpired(_ error: any Error) -> Bool {
        switch error {
        case AuthenticationError.sessionExpired: true
        case CourierError.authentication(.sessionExpired): true
        default: false
        }
    }
}

/// A refresh closure's error, judged by the session's own ``SessionEndingRule`` where the
/// closure ran; the session's waiters get ``underlying`` (see `AuthSession.unjudged`).
struct RuledRefreshFailure: Error {
    /// What the refresh closure threw.
    let underlying: any Error
    /// The token endpoint's answer, when the rule says it ends the session.
    let endingResponse: Response?
    /// Whether the closure threw ``AuthenticationError/sessionExpired`` (which always ends it).
    let threwSessionExpired: Bool

    /// `error`, judged by `rule`.
    static func judging(_ error: any Error, by rule: SessionEndingRule) async -> RuledRefreshFailure {
        if RefreshFailureClassifier.threwSessionExpired(error) {
            return RuledRefreshFailure(underlying: error, endingResponse: nil, threwSessionExpired: true)
        }
        var ending: Response?
        if let response = (error as? CourierError)?.response, await rule.endsSession(after: response) {
            ending = response
        }
        return RuledRefreshFailure(underlying: error, endingResponse: ending, threwSessionExpired: false)
    }
}
