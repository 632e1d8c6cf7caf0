import Foundation

/// Hands every event to every listener subscribed at the time, without an actor hop, so
/// ``AuthSession/events`` can be a `nonisolated` property.
final class AuthEventBroadcaster: Sendable {
    /// One subscriber: how it takes an event, and how its stream is finished.
    private struct Listener: Sendable {
        let yield: @Sendable (AuthEvent.Occurrence) -> Void
        let finish: @Sendable () -> Void
    }

    private struct State {
        var listeners: [UInt64: Listener] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// A new stream that receives every event from now on.
    func subscribe() -> AsyncStream<AuthEvent> {
        subscribe(AuthEvent.self) { $0.event }
    }

    /// A new stream that receives every event from now on, with the session that caused it.
    func subscribeToOccurrences() -> AsyncStream<AuthEvent.Occurrence> {
        subscribe(AuthEvent.Occurrence.self) { $0 }
    }

    private func subscribe<Element: Sendable>(
        _: Element.Type, _ element: @escaping @Sendable (AuthEvent.Occurrence) -> Element
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

    func emit(_ event: AuthEvent, source: AuthEvent.Source = .thisSession) {
        let current = state.withValue { Array($0.listeners.values) }
        let occurrence = AuthEvent.Occurrence(event, source: source)
        for listener in current {
            listener.yield(occurrence)
        }
    }

    deinit {
        for listener in state.withValue({ $0.listeners.values }) {
            listener.finish()
        }
    }
}
