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

    /// What `error` means under `rule`. An error that a session with a rule of its own has
    /// already judged (``RuledRefreshFailure``) keeps that verdict.
    static func classify(_ error: any Error, date: Date, rule: SessionEndingRule = .oauth) -> Verdict {
        switch error {
        case let ruled as RuledRefreshFailure:
            return ruled.endingResponse.map { .rejected(.rejected(by: $0, date: date)) } ?? classifyThrown(ruled, date)
        case AuthenticationError.sessionExpired:
            return .rejected(SessionExpiry(cause: .refreshClosure, date: date))
        case let error as CourierError:
            if case .authentication(.sessionExpired) = error {
                return .rejected(SessionExpiry(cause: .refreshClosure, date: date))
            }
            guard let response = error.response, rule.endsSession(after: response) else { return .transient }
            return .rejected(.rejected(by: response, date: date))
        default:
            return .transient
        }
    }

    /// A ruled failure without an ending response: transient, unless the closure itself threw
    /// ``AuthenticationError/sessionExpired``.
    private static func classifyThrown(_ ruled: RuledRefreshFailure, _ date: Date) -> Verdict {
        ruled.threwSessionExpired ? .rejected(SessionExpiry(cause: .refreshClosure, date: date)) : .transient
    }

    static func isRejection(_ error: any Error) -> Bool {
        classify(error, date: Date(timeIntervalSince1970: 0)) != .transient
    }
}

/// A refresh closure's error, judged by the session's own ``SessionEndingRule`` where the
/// closure ran; the session's waiters get ``underlying`` (see `AuthSession.unwrapped`).
struct RuledRefreshFailure: Error {
    /// What the refresh closure threw.
    let underlying: any Error
    /// The token endpoint's answer, when the rule says it ends the session.
    let endingResponse: Response?
    /// Whether the closure threw ``AuthenticationError/sessionExpired`` (which always ends it).
    let threwSessionExpired: Bool

    /// `error`, judged by `rule`.
    init(_ error: any Error, rule: SessionEndingRule) {
        self.underlying = error
        switch RefreshFailureClassifier.classify(error, date: Date(timeIntervalSince1970: 0), rule: rule) {
        case .transient:
            self.endingResponse = nil
            self.threwSessionExpired = false
        case .rejected(let expiry):
            let response = (error as? CourierError)?.response
            self.endingResponse = expiry.cause == .rejectedByTokenEndpoint ? response : nil
            self.threwSessionExpired = expiry.cause == .refreshClosure
        }
    }
}
