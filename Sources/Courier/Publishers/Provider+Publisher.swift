// Compiled wherever Combine exists (Apple platforms); the logic is RequestSubscriptionCore's,
// which is tested on every platform.
#if canImport(Combine)
    import Combine
    import Dispatch
    import Foundation

    extension Provider {
        /// A publisher of one response, for the call sites of a CombineMoya app that cannot be
        /// rewritten with `async`/`await` at once: `provider.requestPublisher(.user)`.
        ///
        /// ```swift
        /// provider.requestPublisher(.user)
        ///     .map(\.statusCode)
        ///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
        ///     .store(in: &cancellables)
        /// ```
        ///
        /// Each subscription sends the request once, when the subscriber first asks for a value
        /// (so `retry(_:)` sends it again), delivers the response and finishes, or fails with the
        /// ``CourierError``. Cancelling the subscription cancels the request; nothing is
        /// delivered after it. The request is built on the actor this is called on, like
        /// ``request(_:)``.
        ///
        /// - Parameters:
        ///   - target: the call to send.
        ///   - callbackQueue: where the value and the completion are delivered; defaults to the
        ///     provider's ``callbackQueue``, then the main queue, as in Moya.
        ///   - isolation: the caller's actor, where the request is built (filled in for you).
        public func requestPublisher(
            _ target: Target, callbackQueue: DispatchQueue? = nil, isolation: isolated (any Actor)? = #isolation
        ) -> AnyPublisher<Response, CourierError> {
            RequestPublisher(operation: publisherOperation(target), queue: callbackQueue ?? self.callbackQueue ?? .main)
                .eraseToAnyPublisher()
        }

        /// A publisher of one decoded value: the response's body, when its status is 2xx,
        /// decoded as `D` (``request(_:as:decoder:)``'s rules), for CombineMoya's
        /// `requestPublisher(_:).map(D.self)`.
        ///
        /// The body is decoded on `callbackQueue` (the main queue by default), so a model whose
        /// `Decodable` conformance is main-actor isolated (an Xcode 26 app's default) decodes
        /// where it belongs; with another queue, give such a model a `nonisolated` conformance.
        ///
        /// ```swift
        /// provider.requestPublisher(.user, as: User.self)
        ///     .sink(receiveCompletion: { _ in }, receiveValue: { user in self.name = user.name })
        ///     .store(in: &cancellables)
        /// ```
        ///
        /// - Parameters:
        ///   - target: the call to send.
        ///   - type: what to decode.
        ///   - decoder: the decoder.
        ///   - callbackQueue: where the value and the completion are delivered; defaults to the
        ///     provider's ``callbackQueue``, then the main queue.
        ///   - isolation: the caller's actor, where the request is built.
        public func requestPublisher<D: Decodable>(
            _ target: Target, as type: D.Type = D.self, decoder: JSONDecoder = JSONDecoder(),
            callbackQueue: DispatchQueue? = nil, isolation: isolated (any Actor)? = #isolation
        ) -> AnyPublisher<D, CourierError> {
            RequestPublisher(operation: publisherOperation(target), queue: callbackQueue ?? self.callbackQueue ?? .main)
                .flatMap { response in Provider.decoded(response, as: type, decoder: decoder).publisher }
                .eraseToAnyPublisher()
        }
    }
#endif
