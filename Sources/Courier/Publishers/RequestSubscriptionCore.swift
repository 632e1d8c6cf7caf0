import Foundation

/// What a one-shot request publisher's subscription does, without Combine: it starts the
/// request when the subscriber first asks for a value, delivers one value and then the end
/// (or the error) on the subscriber's scheduler, and cancels the request when the
/// subscription is cancelled.
///
/// `Provider.requestPublisher(_:callbackQueue:)` (where Combine exists) is a thin shell
/// around it; the tests drive it directly, on every platform.
///
/// Nothing is delivered after ``cancel()``, nor twice; the callbacks are released once the
/// subscription ends, so a subscriber is not kept alive by a request still in flight.
package final class RequestSubscriptionCore<Output: Sendable>: Sendable {
    /// The request: runs where it was written (the caller's actor) and returns its outcome.
    package typealias Operation = @isolated(any) @Sendable () async -> Result<Output, CourierError>
    /// Runs a delivery on the subscriber's scheduler (a dispatch queue's `async`, say).
    package typealias Schedule = @Sendable (_ delivery: @escaping @Sendable () -> Void) -> Void

    private struct Callbacks: Sendable {
        let receive: @Sendable (Output) -> Void
        let finish: @Sendable (CourierError?) -> Void
    }

    private enum Phase: Sendable {
        /// Subscribed; nothing asked for yet.
        case waiting(Callbacks)
        /// The request is in flight.
        case running(Task<Void, Never>, Callbacks)
        /// Delivered, or cancelled: nothing more happens.
        case ended
    }

    private let operation: Operation
    private let schedule: Schedule
    private let phase: Locked<Phase>

    /// A subscription that has not started.
    ///
    /// - Parameters:
    ///   - operation: the request, called once, when a value is first asked for.
    ///   - schedule: where the value and the end are delivered.
    ///   - receive: the value, called at most once, always followed by `finish(nil)`.
    ///   - finish: the end: `nil` after the value, or the request's error; called at most once.
    package init(
        operation: @escaping Operation,
        schedule: @escaping Schedule,
        receive: @escaping @Sendable (Output) -> Void,
        finish: @escaping @Sendable (CourierError?) -> Void
    ) {
        self.operation = operation
        self.schedule = schedule
        self.phase = Locked(.waiting(Callbacks(receive: receive, finish: finish)))
    }

    /// The request as a closure that runs on the caller's actor, where the target belongs
    /// (`isolation`, filled in for you): the way to make an ``Operation`` from code that reads
    /// a main-actor target.
    package static func operation(
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () async -> Result<Output, CourierError>
    ) -> Operation {
        body
    }

    /// The subscriber asks for `demand` more values (Combine's `Int.max` for unlimited):
    /// the first positive demand starts the request; anything later changes nothing.
    package func request(_ demand: Int) {
        guard demand > 0 else { return }
        phase.withValue { phase in
            guard case .waiting(let callbacks) = phase else { return }
            let operation = operation
            let task = Task { [self] in
                let result = await operation()
                deliver(result)
            }
            phase = .running(task, callbacks)
        }
    }

    /// The subscription is cancelled: the request is cancelled, nothing is delivered, and
    /// the callbacks are released.
    package func cancel() {
        let task = phase.withValue { phase -> Task<Void, Never>? in
            defer { phase = .ended }
            if case .running(let task, _) = phase { return task }
            return nil
        }
        task?.cancel()
    }

    /// Whether the subscription has ended (delivered or cancelled).
    package var hasEnded: Bool {
        phase.withValue { phase in
            if case .ended = phase { return true }
            return false
        }
    }

    /// Hands the outcome to the scheduler, unless the subscription was cancelled meanwhile
    /// (then or before the scheduler runs it).
    private func deliver(_ result: Result<Output, CourierError>) {
        schedule { [self] in
            let callbacks = phase.withValue { phase -> Callbacks? in
                guard case .running(_, let callbacks) = phase else { return nil }
                phase = .ended
                return callbacks
            }
            guard let callbacks else { return }
            switch result {
            case .success(let value):
                callbacks.receive(value)
                callbacks.finish(nil)
            case .failure(let error):
                callbacks.finish(error)
            }
        }
    }
}
