import Foundation

/// A value that several threads share, reached only through ``withValue(_:)``.
///
/// The one lock-protected box of the package: shared mutable state outside an actor lives in
/// one of these rather than in a class with its own lock and `var`s, so `@unchecked Sendable`
/// is claimed here once. Built on `NSLock` because the thread sanitizer does not see
/// `Synchronization.Mutex` on Linux. Its verbs are `CourierTesting.LockIsolated`'s:
/// ``withValue(_:)``, ``value`` and ``setValue(_:)``.
///
/// Sendable whatever `Value` is, so that it can hold non-`Sendable` things that are only ever
/// touched under the lock (the URLSession delegate's per-task state with its open download
/// file): what `withValue` returns must then not be such a thing.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `lock` guards `storage`, which is only reached inside `withValue`.
    private let lock = NSLock()
    private var storage: Value

    /// A box holding `value`.
    package init(_ value: Value) {
        storage = value
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// Keep `body` short and never call back into code that could take the same lock.
    @discardableResult
    package func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&storage)
    }
}

extension Locked where Value: Sendable {
    /// A copy of the value.
    package var value: Value {
        withValue { $0 }
    }

    /// Replaces the value.
    package func setValue(_ newValue: Value) {
        withValue { $0 = newValue }
    }
}
