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
///
/// A test that must wait until the value reaches some state (a fake has seen three
/// requests, a refresh has started) awaits ``wait(until:)``: the change that makes the
/// condition true resumes it, so the test needs no sleep and no polling.
///
/// It is `Sendable` because one lock guards the value and the waiters, every access to them.
public final class LockIsolated<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `lock` guards `storage`, `waiters` and `nextWaiterID`, the only mutable
    // fields, and every access to them.
    private let lock = NSLock()
    private var storage: Value
    private var waiters: [UInt64: Waiter] = [:]
    private var nextWaiterID: UInt64 = 0

    /// A task suspended in ``wait(until:)``.
    private struct Waiter {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Value, any Error>
    }

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
        let satisfied = lock.withLock { () -> [(CheckedContinuation<Value, any Error>, Value)] in
            storage = newValue
            return takeSatisfiedWaiters()
        }
        for (continuation, value) in satisfied { continuation.resume(returning: value) }
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
        var satisfied: [(CheckedContinuation<Value, any Error>, Value)] = []
        // Resumed after the lock is released, so a resumed task may use the box at once.
        defer { for (continuation, value) in satisfied { continuation.resume(returning: value) } }
        return try lock.withLock {
            defer { satisfied = takeSatisfiedWaiters() }
            return try body(&storage)
        }
    }

    /// Suspends until the value satisfies `condition`, and returns the value that did: at
    /// once if it does now, otherwise as soon as a change made with ``setValue(_:)`` or
    /// ``withValue(_:)`` makes it true.
    ///
    /// ```swift
    /// let arrived = LockIsolated(0)
    /// let transport = ClosureTransport { request in
    ///     arrived.withValue { $0 += 1 }
    ///     return Response(statusCode: 200, data: Data(), request: request.urlRequest)
    /// }
    /// // … start three requests …
    /// try await arrived.wait { $0 == 3 }
    /// ```
    ///
    /// There is no time-out: a condition that never comes true waits until the task is
    /// cancelled — give the suite a `.timeLimit`, so such a test fails instead of hanging.
    /// `condition` runs under the box's lock, on the thread that changed the value: keep it
    /// short and do not use the box from it.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the condition holds.
    @discardableResult
    public func wait(until condition: @escaping @Sendable (Value) -> Bool) async throws -> Value {
        let id = lock.withLock { () -> UInt64 in
            nextWaiterID += 1
            return nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let answer = lock.withLock { () -> Result<Value, any Error>? in
                    // Checked under the lock that the cancellation handler takes: a cancellation
                    // that came before this found no waiter to resume, so it is answered here.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if condition(storage) { return .success(storage) }
                    waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Removes the waiters whose condition the value now satisfies. Called with the lock held.
    private func takeSatisfiedWaiters() -> [(CheckedContinuation<Value, any Error>, Value)] {
        guard !waiters.isEmpty else { return [] }
        var satisfied: [(CheckedContinuation<Value, any Error>, Value)] = []
        for (id, waiter) in waiters where waiter.condition(storage) {
            waiters[id] = nil
            satisfied.append((waiter.continuation, storage))
        }
        return satisfied
    }
}
