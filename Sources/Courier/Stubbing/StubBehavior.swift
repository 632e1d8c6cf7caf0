import Foundation

/// Whether a provider answers a target from its sample data instead of the network.
public enum StubBehavior: Sendable, Equatable {
    /// Send the request for real.
    case never
    /// Answer at once from the endpoint's sample response.
    case immediate
    /// Answer from the sample response after the given number of seconds.
    case delayed(seconds: TimeInterval)
}
