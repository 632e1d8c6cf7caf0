import Foundation

/// Hands every event to every listener subscribed at the time, without an actor hop, so
/// ``AuthSession/events`` (and ``AuthSession/eventOccurrences``, ``AuthSession/storageEvents``)
/// can be `nonisolated` properties.
final class AuthEventBroadcaster<Event: Sendable>: Sendable {
    /// One subscriber: how it takes an event, and how its stream is finished.
    private struct Listener: Sendable {
        let yield: @Sendable (Event) -> Void
        let finish: @Sendable () -> Void
    }

    private struct State {
        var listeners: [UInt64: Listener] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// A new stream that receives every event from now on.
    func subscribe() -> AsyncStream<Event> {
        subscribe(Event.self) { $0 }
    }

    /// A new stream that receives every event from now on, as `element` makes it.
    func subscribe<Element: Sendable>(
        _: Element.Type, _ element: @escaping @Sendable (Event) -> Element
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let listener = Listener(yield: { continuation.yield(element($0)) }, finish: { continuation.finish() })
        let id = state.withValue {
            $0.nextID += 1
            $0.listeners[$0.nextID] = listener
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

extension AuthEventBroadcaster where Event == AuthEvent.Occurrence {
    /// A new stream of the events alone (``AuthSession/events``), from now on.
    func subscribeToEvents() -> AsyncStream<AuthEvent> {
        subscribe(AuthEvent.self) { $0.event }
    }

    func emit(_ event: AuthEvent, source: AuthEvent.Source = .thisSession) {
        emit(AuthEvent.Occurrence(event, source: source))
    }
}
