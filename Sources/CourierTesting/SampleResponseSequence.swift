import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sample responses served one per stubbed request, in order — "401, then 200".
///
/// Use it with any provider, a `RefreshableProvider` included, through
/// ``Courier/Provider/endpointClosure(sequence:)``, or build a plain stub provider with
/// ``Courier/Provider/stubbed(sequence:callbackQueue:plugins:)``:
///
/// ```swift
/// let responses = SampleResponseSequence([.networkResponse(401, Data()), .networkResponse(200, body)])
/// let provider = RefreshableProvider<MyAPI>(
///     auth: session,
///     endpointClosure: Provider.endpointClosure(sequence: responses),
///     stubClosure: Provider.immediatelyStub)
/// // … one request: 401, refresh, replay: 200 …
/// #expect(responses.servedCount == 2)
/// ```
///
/// A request that comes after the last response fails loudly with
/// ``SampleResponseSequence/Exhausted``, naming the target.
public final class SampleResponseSequence: Sendable {

    /// A request came after every response in the sequence was used.
    public struct Exhausted: Error, Sendable, CustomStringConvertible {
        /// The target's method and path.
        public let target: String
        /// How many responses the sequence had.
        public let count: Int

        /// What happened.
        public var description: String {
            "SampleResponseSequence has no response left for \(target): all \(count) were used"
        }
    }

    /// The responses, in the order they are served.
    public let responses: [EndpointSampleResponse]
    private let served = LockIsolated(0)

    /// Creates a sequence that serves `responses` in order.
    public init(_ responses: [EndpointSampleResponse]) {
        self.responses = responses
    }

    /// The next response, for a request to `target`.
    public func next(for target: any TargetType) -> EndpointSampleResponse {
        let index = served.withValue { served -> Int in
            defer { served += 1 }
            return served
        }
        guard index < responses.count else {
            return .networkError(Exhausted(target: "\(target.method.rawValue) \(target.path)", count: responses.count))
        }
        return responses[index]
    }

    /// How many requests the sequence has answered (or refused, once exhausted).
    public var servedCount: Int {
        served.value
    }

    /// How many responses are left.
    public var remainingCount: Int {
        max(0, responses.count - served.value)
    }
}
