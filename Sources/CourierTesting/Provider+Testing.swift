import Courier
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Provider {
    /// A provider that answers every request at once with its target's `sampleData` and a
    /// 200, through the whole plugin pipeline.
    ///
    /// ```swift
    /// let provider = Provider<GitHub>.stubbed()
    /// let user = try await provider.request(.user(name: "octocat"), as: User.self)
    /// ```
    public static func stubbed(
        callbackQueue: DispatchQueue? = nil, plugins: [any PluginType] = []
    ) -> Provider<Target> {
        Provider(stubClosure: Provider.immediatelyStub, callbackQueue: callbackQueue, plugins: plugins)
    }

    /// A provider that answers every request at once with what `sampleResponse` returns for
    /// its target.
    ///
    /// ```swift
    /// let provider = Provider<GitHub>.stubbed { target in
    ///     switch target {
    ///     case .user: .networkResponse(404, Data(#"{"message":"Not Found"}"#.utf8))
    ///     default: .networkResponse(200, target.sampleData)
    ///     }
    /// }
    /// ```
    public static func stubbed(
        callbackQueue: DispatchQueue? = nil, plugins: [any PluginType] = [],
        sampleResponse: @escaping @Sendable (Target) -> EndpointSampleResponse
    ) -> Provider<Target> {
        Provider(
            endpointClosure: endpointClosure(sampleResponse: sampleResponse),
            stubClosure: Provider.immediatelyStub, callbackQueue: callbackQueue, plugins: plugins)
    }

    /// A provider that answers its requests with `sequence`'s responses, one per request, in
    /// order, whatever the target.
    ///
    /// ```swift
    /// let provider = Provider<GitHub>.stubbed(
    ///     sequence: [.networkResponse(503, Data()), .networkResponse(200, Data("ok".utf8))])
    /// ```
    public static func stubbed(
        sequence: [EndpointSampleResponse], callbackQueue: DispatchQueue? = nil,
        plugins: [any PluginType] = []
    ) -> Provider<Target> {
        Provider(
            endpointClosure: endpointClosure(sequence: SampleResponseSequence(sequence)),
            stubClosure: Provider.immediatelyStub, callbackQueue: callbackQueue, plugins: plugins)
    }

    /// A provider that sends its requests to `transport`, to script answers and assert on
    /// what was sent.
    ///
    /// ```swift
    /// let transport = ScriptedTransport()
    /// transport.enqueue(.json(#"{"login":"ada"}"#), for: .get("/user"))
    /// let provider = Provider<GitHub>.scripted(transport)
    /// ```
    public static func scripted(
        _ transport: ScriptedTransport, callbackQueue: DispatchQueue? = nil, plugins: [any PluginType] = []
    ) -> Provider<Target> {
        Provider(callbackQueue: callbackQueue, transport: transport, plugins: plugins)
    }

    /// The default endpoint mapping, with `sampleResponse` as each target's sample response.
    /// For any provider's `endpointClosure`, a `RefreshableProvider`'s included.
    public static func endpointClosure(
        sampleResponse: @escaping @Sendable (Target) -> EndpointSampleResponse
    ) -> EndpointClosure {
        replacingSampleResponse(of: Provider.defaultEndpointMapping, with: sampleResponse)
    }

    /// The default endpoint mapping, with the next response of `sequence` as each request's
    /// sample response. The response is taken when the stub answers, so a replayed request
    /// gets the next one.
    public static func endpointClosure(sequence: SampleResponseSequence) -> EndpointClosure {
        replacingSampleResponse(of: Provider.defaultEndpointMapping, with: nextResponse(of: sequence))
    }
}

// Composed outside the provider's generic context: these closures only pass the target on,
// and need none of its conformances.

/// `mapping`, with `sampleResponse` asked for the sample response when the stub answers (so
/// that a replay gets the next response of a sequence).
private func replacingSampleResponse<Target>(
    of mapping: @escaping @Sendable (Target) -> Endpoint,
    with sampleResponse: @escaping @Sendable (Target) -> EndpointSampleResponse
) -> @Sendable (Target) -> Endpoint {
    { target in
        let endpoint = mapping(target)
        // The provider answers a stub on the caller's actor, where the target may be used.
        nonisolated(unsafe) let target = target
        return Endpoint(
            url: endpoint.url, sampleResponseClosure: { sampleResponse(target) }, method: endpoint.method,
            task: endpoint.task, httpHeaderFields: endpoint.httpHeaderFields)
    }
}

/// The next response of `sequence`, for a request to the target.
private func nextResponse(of sequence: SampleResponseSequence) -> @Sendable (any TargetType) -> EndpointSampleResponse {
    { target in sequence.next(for: target) }
}
