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
///
/// A test that must know the call happened before it goes on (the refresh has started, so
/// the requests sent now wait for it) awaits ``wait(forAtLeast:)`` instead of sleeping.
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

    /// Suspends until the count is at least `count`, and returns the count then: at once if
    /// it is already, otherwise when the ``increment()`` that reaches it is made.
    ///
    /// ```swift
    /// let refreshes = CallCounter()
    /// let session = AuthSession(refresh: { token in
    ///     refreshes.increment()
    ///     return try await refreshToken(token)
    /// })
    /// let first = Task { try await provider.request(.profile) }
    /// try await refreshes.wait(forAtLeast: 1)  // the refresh is under way now
    /// ```
    ///
    /// There is no time-out: give the suite a `.timeLimit`, so that a call that never comes
    /// fails the test instead of hanging it.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    @discardableResult
    public func wait(forAtLeast count: Int) async throws -> Int {
        try await self.count.wait { $0 >= count }
    }
}
