import Foundation

/// Hands every event to every listener subscribed at the time, without an actor hop, so
/// ``AuthSession/events`` (and ``AuthSession/storageEvents``) can be a `nonisolated` property.
final class AuthEventBroadcaster<Event: Sendable>: Sendable {
    private struct State {
        var listeners: [UInt64: AsyncStream<Event>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// A new stream that receives every event from now on.
    func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        let id = state.withValue {
            $0.nextID += 1
            $0.listeners[$0.nextID] = continuation
            return $0.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withValue { _ = $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    func emit(_ event: Event) {
        let current = state.withValue { Array($0.listeners.values) }
        for listener in current {
            listener.yield(event)
        }
    }

    deinit {
        for listener in state.withValue({ $0.listeners.values }) {
            listener.finish()
        }
    }
}
