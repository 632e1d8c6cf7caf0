import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One attempt's span, from the moment the ``TelemetryPlugin``'s stage calls `next` to the
/// answer `next` returns or throws.
struct AttemptTelemetry {
    private let plugin: TelemetryPlugin
    private let span: any TelemetrySpan
    private let started: UInt64
    /// The attributes the duration sample shares with the span.
    private let shared: [String: TelemetryValue]

    /// Starts the span for `request`, an attempt of the call `context` describes, and puts its
    /// `traceparent` on the request when it may go there.
    init(_ plugin: TelemetryPlugin, request: inout URLRequest, context: borrowing RequestContext) {
        self.plugin = plugin
        let method = request.httpMethod ?? "GET"
        let route = context.target.route
        // Room for every attribute an attempt has, so that the table is never grown.
        var attributes: [String: TelemetryValue] = Dictionary(minimumCapacity: 8)
        let knownMethod = Self.knownMethods.contains(method)
        attributes[TelemetryKey.method] = .string(knownMethod ? method : "_OTHER")
        if !knownMethod { attributes[TelemetryKey.originalMethod] = .string(method) }
        if let url = request.url {
            if let host = url.host { attributes[TelemetryKey.serverAddress] = .string(host) }
            if let port = url.port ?? Self.defaultPort(of: url) { attributes[TelemetryKey.serverPort] = .int(port) }
            attributes[TelemetryKey.urlFull] = .string(Self.fullURL(url))
        }
        attributes[TelemetryKey.urlTemplate] = .string(route)
        var shared = attributes
        shared[TelemetryKey.urlFull] = nil
        self.shared = shared
        let resends = context.retries + context.replays
        if resends > 0 { attributes[TelemetryKey.resendCount] = .int(resends) }
        if let counter = Self.resendCounter(context) {
            plugin.telemetry.addToCounter(counter, 1, attributes: shared)
        }
        let spanName = (knownMethod ? method : "HTTP") + " " + route
        span = plugin.telemetry.attemptStarted(TelemetryAttempt(spanName: spanName, attributes: attributes))
        if let traceparent = span.traceparent, Self.propagates(plugin.propagation, request: request, context: context),
            !traceparent.isEmpty,
            !traceparent.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        {
            request.setValue(traceparent, forHTTPHeaderField: "traceparent")
        }
        started = DispatchTime.now().uptimeNanoseconds
    }

    /// Ends the span with what the transport (or the stub) answered, and records the
    /// duration sample.
    func end(_ result: Result<Response, CourierError>) {
        let duration = Double(DispatchTime.now().uptimeNanoseconds &- started) / 1_000_000_000
        var outcome = shared
        var isError = false
        var metrics: TransferMetrics?
        switch result {
        case .success(let response):
            outcome[TelemetryKey.statusCode] = .int(response.statusCode)
            if response.statusCode >= 400 {
                outcome[TelemetryKey.errorType] = .string(String(response.statusCode))
                isError = true
            }
            metrics = response.metrics
        case .failure(let error):
            if let response = error.response {
                outcome[TelemetryKey.statusCode] = .int(response.statusCode)
                metrics = response.metrics
            }
            outcome[TelemetryKey.errorType] = .string(Self.errorType(of: error))
            isError = true
        }
        if let version = metrics?.protocolVersion { outcome[TelemetryKey.protocolVersion] = .string(version) }
        span.end(TelemetryOutcome(attributes: outcome, isError: isError, duration: duration, metrics: metrics))
        plugin.telemetry.recordRequestDuration(duration, attributes: outcome)
    }

    /// The counter an attempt that is sent again adds to: a DPoP nonce retry, a retry of the
    /// ``RetryPolicy`` (retries of a replay included), or the first attempt of a token replay;
    /// `nil` for a first attempt.
    private static func resendCounter(_ context: borrowing RequestContext) -> String? {
        if context.isDPoPNonceRetry { return TelemetryCounter.dpopNonceRetries }
        if context.retries > 0 { return TelemetryCounter.retries }
        if context.replays > 0 { return TelemetryCounter.replays }
        return nil
    }

    /// Whether the `traceparent` goes with `request`: the plugin allows it for this target,
    /// and the request goes to the target's own origin.
    private static func propagates(
        _ propagation: TelemetryPlugin.Propagation, request: URLRequest, context: borrowing RequestContext
    )
        -> Bool
    {
        switch propagation {
        case .none: return false
        case .signedTargets: guard context.authorizationType != nil else { return false }
        case .allTargets: break
        }
        return !CrossOriginRedirect.isCrossOrigin(from: context.target.baseURL, to: request.url)
    }

    /// The methods OpenTelemetry names; any other is `_OTHER`.
    private static let knownMethods: Set<String> = [
        "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE", "QUERY",
    ]

    private static func defaultPort(of url: URL) -> Int? {
        switch url.scheme?.lowercased() {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// The URL without user info, with the values of secret query fields hidden.
    private static func fullURL(_ url: URL) -> String {
        let text = url.absoluteString
        // Nothing to hide without user info, a query, a fragment, a `;name=value` parameter or
        // a JWT (`eyJ…`) in the path: the common case, which skips the redactor.
        if !Self.mayHoldSecret(text) {
            return text
        }
        guard url.user != nil || url.password != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return Redaction.default.redact(url: url) }
        components.user = nil
        components.password = nil
        return components.url.map { Redaction.default.redact(url: $0) } ?? "<url>"
    }

    /// Whether `text` has anything ``Redaction/redact(url:)`` could hide.
    private static func mayHoldSecret(_ text: String) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "@"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: ";"), UInt8(ascii: "="):
                return true
            case UInt8(ascii: "J") where previous == (UInt8(ascii: "e"), UInt8(ascii: "y")):
                return true
            default:
                previous = (previous.1, byte)
            }
        }
        return false
    }

    /// A low-cardinality name for what failed.
    static func errorType(of error: CourierError) -> String {
        switch error {
        case .cancelled: return "cancelled"
        case .statusCode(let response): return String(response.statusCode)
        case .authentication: return "authentication"
        case .jsonMapping, .stringMapping, .objectMapping: return "decoding"
        case .encodableMapping, .parameterEncoding, .requestMapping: return "request_encoding"
        case .underlying(let underlying, _):
            guard let urlError = underlying as? URLError else {
                return underlying is RequestValidationError
                    ? "request_validation" : String(describing: type(of: underlying))
            }
            switch urlError.code {
            case .timedOut: return "timeout"
            case .cannotFindHost, .dnsLookupFailed: return "name_resolution"
            case .cannotConnectToHost: return "connection_refused"
            case .networkConnectionLost: return "connection_lost"
            case .notConnectedToInternet: return "not_connected"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
                return "tls"
            case .cancelled: return "cancelled"
            case .userAuthenticationRequired: return "authentication_required"
            case .dataLengthExceedsMaximum: return "response_too_large"
            case .cannotDecodeContentData, .cannotParseResponse, .badServerResponse: return "bad_response"
            case .httpTooManyRedirects, .redirectToNonExistentLocation: return "redirect"
            default: return "URLError(\(urlError.code.rawValue))"
            }
        }
    }
}
