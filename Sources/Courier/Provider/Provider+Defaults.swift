import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Provider {
    /// The endpoint Moya would make: `URL(target:)`, the target's method, task and
    /// headers, and a 200 sample response with its ``TargetType/sampleData``.
    ///
    /// The sample data is read when a stub answers, as in Moya, not for every request (it
    /// often comes from a file).
    public static func defaultEndpointMapping(for target: Target) -> Endpoint {
        Endpoint(standardFor: target)
    }

    /// The endpoint's own ``Endpoint/urlRequest()``.
    public nonisolated(nonsending) static func defaultRequestMapping(for endpoint: Endpoint) async throws
        -> URLRequest
    {
        try endpoint.urlRequest()
    }

    /// ``defaultEndpointMapping(for:)`` as a `@Sendable` closure, so that passing
    /// `Provider.defaultEndpointMapping` (a subclass's `override init` default, say) compiles
    /// without a warning in Swift 5 language mode too.
    public static var defaultEndpointMapping: EndpointClosure { standardEndpointMapping }

    /// ``defaultRequestMapping(for:)`` as a `@Sendable` closure, for the same reason as
    /// ``defaultEndpointMapping``.
    public static var defaultRequestMapping: RequestClosure { standardRequestMapping }
}

// The default mappings are closures over `any TargetType`, made once, outside the generic
// context: the provider calls them only on the caller's actor, where a target's (possibly
// isolated) conformance may be used, and a closure formed in the generic context would hold
// `Target`'s conformances as if they could go anywhere.

/// ``Provider/defaultEndpointMapping``.
private let standardEndpointMapping: @Sendable (any TargetType) -> Endpoint = { Endpoint(standardFor: $0) }

/// ``Provider/defaultRequestMapping``.
private let standardRequestMapping: nonisolated(nonsending) @Sendable (Endpoint) async throws -> URLRequest = {
    try $0.urlRequest()
}
