import Foundation

/// A clock that stands still until a test moves it, to drive token expiry.
///
/// Hand its ``now`` closure to `AuthSession`, then move time instead of waiting:
///
/// ```swift
/// let clock = TestClock()
/// let session = AuthSession(refresh: { _ in freshToken }, now: clock.now)
/// try await session.signIn(OAuthToken(accessToken: "a", expiresAt: clock.date + 3600))
/// clock.advance(by: 3600)  // the token has expired: the next request refreshes it
/// ```
public final class TestClock: Sendable {
    private let current: LockIsolated<Date>

    /// Creates a clock that reads `start` (by default a fixed date, so tests are repeatable).
    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.current = LockIsolated(start)
    }

    /// The time the clock reads.
    public var date: Date {
        current.value
    }

    /// Reads the clock: pass it where a `now: @Sendable () -> Date` is expected.
    public var now: @Sendable () -> Date {
        { [self] in date }
    }

    /// Moves the clock forward by `interval` seconds (backward if negative).
    public func advance(by interval: TimeInterval) {
        current.withValue { $0 += interval }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) {
        current.setValue(date)
    }
}
