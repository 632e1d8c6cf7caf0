import Foundation

extension Provider {
    /// The request behind `requestPublisher(_:callbackQueue:)`: sends `target` on the caller's
    /// actor (`isolation`, filled in for you), as ``request(_:)`` does, each time it is called.
    package func publisherOperation(_ target: Target, isolation: isolated (any Actor)? = #isolation)
        -> RequestSubscriptionCore<Response>.Operation
    {
        RequestSubscriptionCore.operation {
            _ = isolation  // The request is built on the caller's actor, where the target belongs.
            return await self.result(for: target)
        }
    }

    /// The request behind `requestPublisher(_:as:decoder:callbackQueue:)`: sends `target` and
    /// decodes a successful body as `D`, as ``request(_:as:decoder:)`` does, on the caller's
    /// actor.
    package func publisherOperation<D: Decodable & Sendable>(
        _ target: Target, as type: D.Type, decoder: JSONDecoder, isolation: isolated (any Actor)? = #isolation
    ) -> RequestSubscriptionCore<D>.Operation {
        RequestSubscriptionCore.operation {
            _ = isolation  // The request is built and decoded on the caller's actor.
            do throws(CourierError) {
                return .success(try await self.request(target, as: type, decoder: decoder))
            } catch {
                return .failure(error)
            }
        }
    }
}
