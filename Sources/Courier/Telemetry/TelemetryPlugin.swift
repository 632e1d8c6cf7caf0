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
/// A provider without one does no telemetry work at all. The plugin's hooks do nothing
/// themselves: the provider recognises it and times each attempt around the transport (the
/// span starts after every plugin's `prepare`, so time spent waiting for a token is not the
/// request's, and ends when the transport answers). Where the plugin sits among the others
/// does not matter; only the first one counts.
public struct TelemetryPlugin: PluginType {
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
}
