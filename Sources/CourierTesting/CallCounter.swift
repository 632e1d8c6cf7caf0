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
public final class CallCounter: @unchecked Sendable {  // `lock` guards `count`
    private let lock = NSLock()
    private var count = 0

    /// Creates a counter at zero.
    public init() {}

    /// Adds one and returns the new count (1 for the first call).
    @discardableResult
    public func increment() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }

    /// Sets the count back to zero.
    public func reset() {
        lock.withLock { count = 0 }
    }

    /// The count so far.
    public var value: Int { lock.withLock { count } }
}
