extension AuthSession {
    /// `refresh`, whose errors are judged by `rule` where they are thrown, so that the session
    /// ends (or not) as `rule` says. OAuth's rule is the session's own: the closure is kept as
    /// it is.
    static func judging(_ refresh: @escaping RefreshClosure, by rule: SessionEndingRule) -> RefreshClosure {
        guard !rule.isOAuth else { return refresh }
        return { token in
            do {
                return try await refresh(token)
            } catch {
                throw await RuledRefreshFailure.judging(error, by: rule)
            }
        }
    }

    /// What the refresh closure threw, without the verdict ``judging(_:by:)`` wrapped it in.
    static func unjudged(_ error: any Error) -> any Error {
        (error as? RuledRefreshFailure)?.underlying ?? error
    }
}
