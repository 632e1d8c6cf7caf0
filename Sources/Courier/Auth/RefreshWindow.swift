import Foundation

/// A limit on how many refreshes may start within a time window.
///
/// A server that rejects every fresh token would otherwise make every request refresh
/// again; past the limit, requests fail with ``AuthenticationError/excessiveRefresh``.
public struct RefreshWindow: Sendable, Equatable {
    /// The window's length, in seconds.
    public var interval: TimeInterval
    /// How many refreshes may start within ``interval``.
    public var maximumAttempts: Int

    /// Creates a window; the default allows 5 refreshes in 30 seconds.
    public init(interval: TimeInterval = 30, maximumAttempts: Int = 5) {
        self.interval = interval
        self.maximumAttempts = maximumAttempts
    }
}
