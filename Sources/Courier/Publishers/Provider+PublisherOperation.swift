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

    /// What `requestPublisher(_:as:decoder:callbackQueue:)` makes of a response:
    /// ``request(_:as:decoder:)``'s rules (a non-2xx answer is ``CourierError/statusCode(_:)``,
    /// then the body is decoded as `D`). `D` need not be `Sendable`, nor its conformance
    /// nonisolated: it is decoded where the response is delivered.
    package static func decoded<D: Decodable>(_ response: Response, as type: D.Type, decoder: JSONDecoder)
        -> Result<D, CourierError>
    {
        Result { () throws(CourierError) -> D in
            try response.filterSuccessfulStatusCodes().map(type, using: decoder)
        }
    }
}
