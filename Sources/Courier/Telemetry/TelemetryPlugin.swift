import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns on telemetry for a provider: each attempt of each request becomes a span and a
/// duration sample of the ``RequestTelemetry`` you give, named and attributed as the
/// OpenTelemetry HTTP client semantic conventions say, and the span's W3C `traceparent`
/// goes with the request to the target's own origin.
///
/// ```swift
/// let provider = RefreshableProvider<GitHub>(
///     auth: session, plugins: [TelemetryPlugin(MyTelemetry()), NetworkLoggerPlugin()])
/// ```
///
/// A provider without one does no telemetry work at all. The plugin is a stage around the send
/// (a ``RequestInterceptor``, the hook your own plugins get too): each call of its `next` — the
/// first attempt, each retry of the ``Provider/retryPolicy``, each token replay of a
/// ``RefreshableProvider`` — is a span, from the moment the attempt starts through the plugins'
/// `prepare`, `willSend`, the transport, `didReceive` and `process`. The re-authentication
/// stage runs outside it, so time spent waiting for a token or a refresh is not the request's.
/// Its place among your plugins matters as for any interceptor: an interceptor listed before
/// it sees one span per call of its own `next`.
public struct TelemetryPlugin: RequestInterceptor {
    /// Where the trace context goes.
    public enum Propagation: Sendable {
        /// To the targets the provider signs (whose ``TargetType/authorizationType`` is not
        /// `nil`), at their own origin: not to a login or token endpoint, nor to a
        /// third-party host. The default.
        case signedTargets
        /// To every target, at its own origin.
        case allTargets
        /// Nowhere: spans are recorded, no `traceparent` is sent.
        case none
    }

    /// Receives the spans and samples.
    public let telemetry: any RequestTelemetry
    /// Where the `traceparent` goes.
    public let propagation: Propagation

    /// Creates the plugin.
    ///
    /// - Parameters:
    ///   - telemetry: receives a span and a duration sample per attempt.
    ///   - propagation: where the `traceparent` goes (to signed targets at their own origin,
    ///     by default). It never goes to another origin, whatever this says: a request's URL
    ///     must be at its target's ``TargetType/baseURL`` origin, and a transport drops it on
    ///     a redirect to another origin.
    public init(_ telemetry: any RequestTelemetry, propagation: Propagation = .signedTargets) {
        self.telemetry = telemetry
        self.propagation = propagation
    }

    /// Times one attempt: starts its span (and puts the `traceparent` on the request where it
    /// may go), sends it through `next`, and ends the span with what came back.
    public nonisolated(nonsending) func intercept(_ request: URLRequest, context: RequestContext, next: Next)
        async throws(CourierError) -> Response
    {
        var request = request
        let span = AttemptTelemetry(self, request: &request, context: context)
        do {
            let response = try await next(request, context)
            span.end(.success(response))
            return response
        } catch {
            span.end(.failure(error))
            throw error
        }
    }
}
