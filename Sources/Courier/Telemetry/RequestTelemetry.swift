import Foundation

/// Receives what a provider's requests do on the wire, in OpenTelemetry's terms: one span
/// per attempt and one `http.client.request.duration` sample per attempt, named and
/// attributed as the OpenTelemetry HTTP client semantic conventions say.
///
/// Install it with a ``TelemetryPlugin``; with none installed a provider does no telemetry
/// work at all. Courier depends on no tracing library: an adapter of a few lines forwards to
/// swift-distributed-tracing, OpenTelemetry or your own metrics (see <doc:MetricsAndTracing>).
///
/// ```swift
/// struct PrintingTelemetry: RequestTelemetry {
///     func attemptStarted(_ attempt: TelemetryAttempt) -> any TelemetrySpan {
///         PrintingSpan(name: attempt.spanName)
///     }
/// }
/// ```
///
/// An attempt is one trip through the transport: the first, each retry of a
/// ``RetryPolicy`` and each replay after a token refresh (``TelemetryKey/resendCount`` tells
/// them apart); a redirect the transport follows is part of its attempt.
public protocol RequestTelemetry: Sendable {
    /// An attempt is about to go out: start its span (a client span named
    /// ``TelemetryAttempt/spanName``, with ``TelemetryAttempt/attributes``). The span is
    /// ended when the attempt ends.
    func attemptStarted(_ attempt: TelemetryAttempt) -> any TelemetrySpan

    /// One sample of the `http.client.request.duration` histogram (seconds), with its
    /// attributes, when an attempt ends. Does nothing by default.
    func recordRequestDuration(_ seconds: Double, attributes: [String: TelemetryValue])

    /// Adds `value` to the monotonic counter `name` (one of ``TelemetryCounter``'s names), with
    /// its attributes: forward it to your metrics backend's counter of that name. Does nothing
    /// by default.
    func addToCounter(_ name: String, _ value: Int, attributes: [String: TelemetryValue])
}

extension RequestTelemetry {
    /// Records nothing.
    public func recordRequestDuration(_ seconds: Double, attributes: [String: TelemetryValue]) {}

    /// Counts nothing.
    public func addToCounter(_ name: String, _ value: Int, attributes: [String: TelemetryValue]) {}
}

/// One attempt's span, as a ``RequestTelemetry`` started it.
public protocol TelemetrySpan: Sendable {
    /// The W3C `traceparent` to send with the attempt (`00-<trace-id>-<span-id>-<flags>`), or
    /// `nil` to send none. It goes only to the target's own origin (see
    /// ``TelemetryPlugin/Propagation``), and a transport drops it on a redirect to another
    /// origin.
    var traceparent: String? { get }

    /// The attempt ended: set the outcome's attributes and status, and end the span.
    func end(_ outcome: TelemetryOutcome)
}

extension TelemetrySpan {
    /// No trace context is propagated.
    public var traceparent: String? { nil }
}

/// An attempt that is about to go out.
public struct TelemetryAttempt: Sendable {
    /// `{method} {route}` (``TargetType/route``), for example `GET GitHub.user` or
    /// `GET users/{name}`: low-cardinality, never the raw path with its ids.
    public let spanName: String
    /// `http.request.method`, `server.address`, `server.port`, `url.full` (without user
    /// info, and with query values redacted), `url.template` and, for a retry or a replay,
    /// `http.request.resend_count`.
    public let attributes: [String: TelemetryValue]

    /// Creates an attempt's description.
    public init(spanName: String, attributes: [String: TelemetryValue]) {
        self.spanName = spanName
        self.attributes = attributes
    }
}

/// How an attempt ended.
public struct TelemetryOutcome: Sendable {
    /// `http.response.status_code` when an answer came, `error.type` when the attempt
    /// failed (a 4xx or 5xx status, or a transport error), `network.protocol.version` when
    /// the transport knows it.
    public let attributes: [String: TelemetryValue]
    /// Whether the span's status is an error: no answer, or a 4xx or 5xx one (a client
    /// span's rule).
    public let isError: Bool
    /// How long the attempt took, in seconds.
    public let duration: TimeInterval
    /// What the transport measured, when it did.
    public let metrics: TransferMetrics?

    /// Creates an outcome.
    public init(
        attributes: [String: TelemetryValue], isError: Bool, duration: TimeInterval, metrics: TransferMetrics?
    ) {
        self.attributes = attributes
        self.isError = isError
        self.duration = duration
        self.metrics = metrics
    }
}

/// A value of a telemetry attribute.
public enum TelemetryValue: Sendable, Equatable, CustomStringConvertible {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A Boolean.
    case bool(Bool)

    /// The value as text.
    public var description: String {
        switch self {
        case .string(let value): value
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        }
    }
}

/// The attribute names Courier sets, as the OpenTelemetry HTTP client semantic conventions
/// spell them.
public enum TelemetryKey {
    /// `http.request.method`: `GET`, `POST`…, or `_OTHER` for a method OpenTelemetry does not
    /// list (then ``originalMethod`` holds it).
    public static let method = "http.request.method"
    /// `http.request.method_original`: a method that is not one of the known ones.
    public static let originalMethod = "http.request.method_original"
    /// `server.address`: the host.
    public static let serverAddress = "server.address"
    /// `server.port`: the port, the scheme's default when the URL has none.
    public static let serverPort = "server.port"
    /// `url.full`: the URL, without user info and with query values redacted.
    public static let urlFull = "url.full"
    /// `url.template`: the target's ``TargetType/route``.
    public static let urlTemplate = "url.template"
    /// `http.request.resend_count`: how many times the request was sent before this attempt
    /// (retries and token replays), set from the second attempt on.
    public static let resendCount = "http.request.resend_count"
    /// `http.response.status_code`.
    public static let statusCode = "http.response.status_code"
    /// `error.type`: the status code of a 4xx or 5xx answer, or what failed (`timeout`,
    /// `name_resolution`, `connection_refused`, `tls`…).
    public static let errorType = "error.type"
    /// `network.protocol.version`: `1.1`, `2`.
    public static let protocolVersion = "network.protocol.version"
}
