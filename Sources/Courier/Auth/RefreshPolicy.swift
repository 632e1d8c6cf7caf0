import Foundation

/// When a ``RefreshableProvider`` treats a response as "the token was rejected", and how it
/// replays.
///
/// ```swift
/// // A backend that answers 200 with {"status": "8"} when the token has expired:
/// let policy = RefreshPolicy.custom { response in
///     (try? response.mapString(atKeyPath: "status")) == "8"
/// }
/// ```
public struct RefreshPolicy: Sendable {
    /// Whether `response` means the access token was rejected. Runs on every response of a
    /// signed request, whatever the target's validation.
    public var isAuthenticationFailure: @Sendable (Response) -> Bool
    /// How many times one request may be replayed after a refresh (default 1). A replay
    /// that is rejected again is returned as it is: no loop.
    public var maxReplays: Int
    /// Seconds to wait before a replay (default 0).
    public var replayDelay: TimeInterval

    /// Creates a policy.
    public init(
        maxReplays: Int = 1, replayDelay: TimeInterval = 0,
        isAuthenticationFailure: @escaping @Sendable (Response) -> Bool = { $0.statusCode == 401 }
    ) {
        self.isAuthenticationFailure = isAuthenticationFailure
        self.maxReplays = max(0, maxReplays)
        self.replayDelay = max(0, replayDelay)
    }

    /// 401 means the token was rejected; one replay, no delay.
    public static let `default` = RefreshPolicy()

    /// Any of `statusCodes` means the token was rejected.
    public static func statusCodes(
        _ statusCodes: Set<Int>, maxReplays: Int = 1, replayDelay: TimeInterval = 0
    ) -> RefreshPolicy {
        RefreshPolicy(maxReplays: maxReplays, replayDelay: replayDelay) { statusCodes.contains($0.statusCode) }
    }

    /// `isAuthenticationFailure` decides, reading status, headers or body.
    public static func custom(
        maxReplays: Int = 1, replayDelay: TimeInterval = 0,
        _ isAuthenticationFailure: @escaping @Sendable (Response) -> Bool
    ) -> RefreshPolicy {
        RefreshPolicy(
            maxReplays: maxReplays, replayDelay: replayDelay, isAuthenticationFailure: isAuthenticationFailure)
    }
}
