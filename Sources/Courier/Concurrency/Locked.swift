import Foundation

/// A value that several threads share, reached only through ``withLock(_:)``.
///
/// The one lock-protected box of the package: shared mutable state outside an actor lives in
/// one of these rather than in a class with its own lock and `var`s, so `@unchecked Sendable`
/// is claimed here once. Built on `NSLock` because the thread sanitizer does not see
/// `Synchronization.Mutex` on Linux.
///
/// Sendable whatever `Value` is, so that it can hold non-`Sendable` things that are only ever
/// touched under the lock (the URLSession delegate's per-task state with its open download
/// file): what `withLock` returns must then not be such a thing.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `lock` guards `value`, which is only reached inside `withLock`.
    private let lock = NSLock()
    private var value: Value

    /// A box holding `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// Keep `body` short and never call back into code that could take the same lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Locked where Value: Sendable {
    /// A copy of the value.
    package var current: Value {
        withLock { $0 }
    }
}
