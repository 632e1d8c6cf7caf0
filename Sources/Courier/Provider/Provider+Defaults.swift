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
}
