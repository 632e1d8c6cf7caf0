/// Turns a delay in seconds (from a caller, a server or a config) into something
/// `Task.sleep` accepts, without trapping.
///
/// `UInt64(seconds * 1_000_000_000)` traps on a negative, NaN or infinite value and on
/// anything above about 584 years, and a `Retry-After` dated in the year 9999 or a
/// `maximumRetryAfter` of `.infinity` gets there. Every sleep in Courier goes through here.
package enum Delay {
    /// The longest wait Courier ever schedules: 100 years, in seconds. Longer waits are
    /// "forever" for an app; capping well below `UInt64.max` nanoseconds also keeps the
    /// runtime's `now + delay` from overflowing (which would fire at once).
    package static let maximumSeconds: Double = 100 * 365 * 86_400

    private static let nanosecondsPerSecond: UInt64 = 1_000_000_000

    /// `seconds` in nanoseconds: 0 for a negative, zero or NaN delay, ``maximumSeconds`` for a
    /// longer (or infinite) one.
    package static func nanoseconds(_ seconds: Double) -> UInt64 {
        // `!(seconds > 0)` is true for NaN too.
        guard seconds > 0 else { return 0 }
        let clamped = min(seconds, maximumSeconds)
        return UInt64(clamped * Double(nanosecondsPerSecond))
    }

    /// Sleeps for `seconds`, clamped as ``nanoseconds(_:)``; throws `CancellationError` when
    /// the task is cancelled.
    package static func sleep(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: nanoseconds(seconds))
    }
}
