import Foundation

/// Hands every event to every listener subscribed at the time, without an actor hop, so
/// ``AuthSession/events`` can be a `nonisolated` property.
final class AuthEventBroadcaster: @unchecked Sendable {  // `lock` guards all state
    // `lock` guards `listeners` and `nextID`.
    private let lock = NSLock()
    private var listeners: [UInt64: AsyncStream<AuthEvent>.Continuation] = [:]
    private var nextID: UInt64 = 0

    /// A new stream that receives every event from now on.
    func subscribe() -> AsyncStream<AuthEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthEvent.self)
        let id = lock.withLock {
            nextID += 1
            listeners[nextID] = continuation
            return nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.lock.withLock { _ = self?.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    func emit(_ event: AuthEvent) {
        let current = lock.withLock { Array(listeners.values) }
        for listener in current {
            listener.yield(event)
        }
    }

    deinit {
        for listener in listeners.values {
            listener.finish()
        }
    }
}
