import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Provider {
    /// The endpoint Moya would make: `URL(target:)`, the target's method, task and
    /// headers, and a 200 sample response with its ``TargetType/sampleData``.
    public static func defaultEndpointMapping(for target: Target) -> Endpoint {
        Endpoint(
            url: URL(target: target),
            sampleResponseClosure: { .networkResponse(200, target.sampleData) },
            method: target.method,
            task: target.task,
            httpHeaderFields: target.headers)
    }

    /// The endpoint's own ``Endpoint/urlRequest()``.
    public static func defaultRequestMapping(for endpoint: Endpoint) async throws -> URLRequest {
        try endpoint.urlRequest()
    }

    /// ``defaultEndpointMapping(for:)`` as a `@Sendable` closure, so that passing
    /// `Provider.defaultEndpointMapping` (a subclass's `override init` default, say) compiles
    /// without a warning in Swift 5 language mode too.
    public static var defaultEndpointMapping: EndpointClosure { { defaultEndpointMapping(for: $0) } }

    /// ``defaultRequestMapping(for:)`` as a `@Sendable` closure, for the same reason as
    /// ``defaultEndpointMapping``.
    public static var defaultRequestMapping: RequestClosure { { try await defaultRequestMapping(for: $0) } }
}
