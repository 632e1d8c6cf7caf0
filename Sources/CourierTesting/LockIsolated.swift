import Foundation

/// A value behind a lock, for state a test shares between tasks, callbacks and closures that
/// Swift requires to be `Sendable`: what a fake transport has seen, what a plugin recorded,
/// how often a refresh ran.
///
/// It replaces a hand-written lock and `var` in every helper class: a class whose mutable
/// state lives in `LockIsolated` boxes is `Sendable` without `@unchecked`.
///
/// ```swift
/// let refreshed = LockIsolated<[String]>([])
/// let session = AuthSession(refresh: { token in
///     refreshed.withValue { $0.append(token.accessToken) }
///     return try await refreshToken(token)
/// })
/// // … fire concurrent requests with an expired token …
/// #expect(refreshed.value == ["expired-token"])
/// ```
///
/// Each call holds the lock for the duration of one closure, so a read-modify-write done
/// inside ``withValue(_:)`` is atomic; reading ``value`` and writing it back in two calls is
/// not. Keep the closures short and never `await` or call back into the same box from them.
public final class LockIsolated<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `lock` guards `storage`, the only mutable field, and every access to it.
    private let lock = NSLock()
    private var storage: Value

    /// Creates a box holding `value`.
    public init(_ value: Value) {
        storage = value
    }

    /// The value at this moment (a copy).
    public var value: Value {
        lock.withLock { storage }
    }

    /// Replaces the value.
    public func setValue(_ newValue: Value) {
        lock.withLock { storage = newValue }
    }

    /// Runs `body` with exclusive access to the value and returns what it returns: the way
    /// to read and change the value in one step.
    ///
    /// ```swift
    /// let count = LockIsolated(0)
    /// let now = count.withValue { value -> Int in
    ///     value += 1
    ///     return value
    /// }
    /// ```
    @discardableResult
    public func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&storage) }
    }
}
