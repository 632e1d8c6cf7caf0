// Compiled wherever Combine exists (Apple platforms); the logic is RequestSubscriptionCore's,
// which is tested on every platform.
#if canImport(Combine)
    import Combine
    import Dispatch

    /// A Combine publisher of one request's outcome: a thin shell around
    /// ``RequestSubscriptionCore``, one core per subscription.
    struct RequestPublisher<Output: Sendable>: Publisher {
        typealias Failure = CourierError

        /// The request, run once per subscription on the actor it was made on.
        let operation: RequestSubscriptionCore<Output>.Operation
        /// Where the value and the completion are delivered.
        let queue: DispatchQueue

        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == CourierError {
            // Combine calls a subscriber one call at a time; the core calls it at most twice,
            // one call after the other, on `queue`, and never after the subscription is
            // cancelled.
            nonisolated(unsafe) let subscriber = AnySubscriber(subscriber)
            let core = RequestSubscriptionCore(
                operation: operation,
                schedule: { [queue] delivery in queue.async(execute: delivery) },
                receive: { value in _ = subscriber.receive(value) },
                finish: { error in subscriber.receive(completion: error.map { .failure($0) } ?? .finished) }
            )
            subscriber.receive(subscription: RequestSubscription(core: core))
        }
    }

    /// The subscription: demand and cancellation go to the core.
    final class RequestSubscription<Output: Sendable>: Subscription {
        private let core: RequestSubscriptionCore<Output>

        init(core: RequestSubscriptionCore<Output>) {
            self.core = core
        }

        func request(_ demand: Subscribers.Demand) {
            core.request(demand.max ?? Int.max)
        }

        func cancel() {
            core.cancel()
        }
    }
#endif
