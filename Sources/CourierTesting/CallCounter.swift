import Foundation

/// Counts calls made from any number of tasks, such as calls of an `AuthSession`'s refresh
/// closure, so a test can assert that a burst of requests refreshed exactly once.
///
/// ```swift
/// let refreshes = CallCounter()
/// let session = AuthSession(refresh: { token in
///     refreshes.increment()
///     return try await refreshToken(token)
/// })
/// // … fire concurrent requests …
/// #expect(refreshes.value == 1)
/// ```
public final class CallCounter: Sendable {
    private let count = LockIsolated(0)

    /// Creates a counter at zero.
    public init() {}

    /// Adds one and returns the new count (1 for the first call).
    @discardableResult
    public func increment() -> Int {
        count.withValue { count in
            count += 1
            return count
        }
    }

    /// Sets the count back to zero.
    public func reset() {
        count.setValue(0)
    }

    /// The count so far.
    public var value: Int { count.value }
}
