import Foundation

/// What is wrong with an endpoint URL that cannot make a request, in words for the
/// description of ``CourierError/requestMapping(_:)``.
///
/// Moya sends a stubbed request with a relative URL (`Endpoint(url: "users/1")`) and only
/// a real one fails; Courier refuses it at the first request, stubbed or not, so that a stub
/// and the network see the same request. The description says so and what to write instead.
enum EndpointURLProblem: Equatable {
    /// Foundation cannot parse it as a URL.
    case unparseable
    /// A URL without a scheme: a path, or a host written without `https://`.
    case relative

    /// The problem with `url`, or `nil` if it is an absolute URL (a request closure may
    /// throw ``CourierError/requestMapping(_:)`` for a reason of its own).
    init?(_ url: String) {
        guard let parsed = URL(string: url) else {
            self = .unparseable
            return
        }
        guard parsed.scheme == nil else { return nil }
        self = .relative
    }

    /// Why, as a clause to follow the URL.
    var explanation: String {
        switch self {
        case .unparseable:
            "it is not a valid URL"
        case .relative:
            "it is a relative URL. Courier sends absolute URLs only, stubbed requests too (Moya "
                + "accepted a relative one for a stub): make the endpoint's URL with URL(target: target), as "
                + "Provider.defaultEndpointMapping(for:) does"
        }
    }
}
