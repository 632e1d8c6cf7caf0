import Foundation

/// A limit on how many refreshes may follow the rejection of a fresh token within a time
/// window: the guard against a server that rejects every token it issues, which would
/// otherwise make every request refresh again.
///
/// Only what shows that loop counts: a refresh started because the server rejected a token in
/// the first half of its lifetime (or a token whose lifetime or age the session does not know).
/// A healthy session's scheduled refreshes never count — neither a proactive refresh of a token
/// that expires soon nor a refresh after the server rejected a token near its expiry — so a
/// session with 3-second tokens may refresh every 1.5 seconds for as long as it runs.
///
/// Past the limit, a request whose token the server rejected fails with
/// ``AuthenticationError/excessiveRefresh``; a request whose token only expires soon goes out
/// with it, and the server decides. Pass it to ``AuthSession``'s `refreshWindow:` parameter;
/// `nil` turns the guard off.
public struct RefreshWindow: Sendable, Equatable {
    /// The window's length, in seconds.
    public var interval: TimeInterval
    /// How many refreshes after a fresh token's rejection may start within ``interval``.
    public var maximumAttempts: Int

    /// Creates a window; the default allows 5 such refreshes in 30 seconds.
    public init(interval: TimeInterval = 30, maximumAttempts: Int = 5) {
        self.interval = interval
        self.maximumAttempts = maximumAttempts
    }
}
