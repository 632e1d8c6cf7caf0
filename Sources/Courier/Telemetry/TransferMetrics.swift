import Foundation

/// What one attempt of a request cost on the wire, as its transport measured it: where the
/// time went, how many bytes moved, whether a connection was reused, and the protocol.
///
/// ```swift
/// let response = try await provider.request(.user(name: "ada"))
/// if let metrics = response.metrics {
///     print(metrics.summary)  // total 12.4 ms (dns 0.1, connect 0.3, tls 2.0, first byte 9.8); sent 212 B, received 1.2 KB; h2; reused
/// }
/// ```
///
/// Every field is optional: `nil` means the transport could not measure it. `CurlTransport`
/// fills them all from libcurl's timers. ``URLSessionTransport`` fills what the platform
/// gives: on Apple platforms `URLSessionTaskMetrics`; on Linux, where swift-corelibs-foundation
/// delivers no task metrics, the total, the time to the first byte of the answer and the
/// bytes it counted itself.
///
/// Durations are in seconds from the start of the attempt; a redirect that the transport
/// followed is part of the attempt (``redirectCount``).
public struct TransferMetrics: Sendable, Equatable {
    /// Resolving the host name.
    public var domainLookup: TimeInterval?
    /// Opening the TCP connection (after the look-up).
    public var connect: TimeInterval?
    /// The TLS handshake (after the connection).
    public var secureConnection: TimeInterval?
    /// From the start of the attempt to the first byte of the answer.
    public var timeToFirstByte: TimeInterval?
    /// From the start of the attempt to its end.
    public var total: TimeInterval?
    /// Bytes of request body sent.
    public var bytesSent: Int64?
    /// Bytes of response body received: as they came over the wire (still compressed) where
    /// the transport sees them so, as `CurlTransport` and Apple's URLSession do — the size
    /// OpenTelemetry calls `http.response.body.size`. On Linux `URLSessionTransport` counts
    /// the body as swift-corelibs-foundation hands it over, already decoded.
    public var bytesReceived: Int64?
    /// Whether the attempt went out on a connection already open (no look-up, connect or
    /// handshake).
    public var reusedConnection: Bool?
    /// The HTTP version the answer came in: `"1.1"`, `"2"` (OpenTelemetry's
    /// `network.protocol.version`).
    public var protocolVersion: String?
    /// How many redirects the transport followed within the attempt.
    public var redirectCount: Int

    /// Creates metrics; every field not given is unknown.
    public init(
        domainLookup: TimeInterval? = nil, connect: TimeInterval? = nil, secureConnection: TimeInterval? = nil,
        timeToFirstByte: TimeInterval? = nil, total: TimeInterval? = nil, bytesSent: Int64? = nil,
        bytesReceived: Int64? = nil, reusedConnection: Bool? = nil, protocolVersion: String? = nil,
        redirectCount: Int = 0
    ) {
        self.domainLookup = domainLookup
        self.connect = connect
        self.secureConnection = secureConnection
        self.timeToFirstByte = timeToFirstByte
        self.total = total
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.reusedConnection = reusedConnection
        self.protocolVersion = protocolVersion
        self.redirectCount = redirectCount
    }

    /// The metrics in one line, for a log: what is known, nothing for what is not.
    public var summary: String {
        var timing: [String] = []
        if let domainLookup { timing.append("dns " + Self.milliseconds(domainLookup)) }
        if let connect { timing.append("connect " + Self.milliseconds(connect)) }
        if let secureConnection { timing.append("tls " + Self.milliseconds(secureConnection)) }
        if let timeToFirstByte { timing.append("first byte " + Self.milliseconds(timeToFirstByte)) }
        var parts: [String] = []
        let total = total.map { "total " + Self.milliseconds($0) + " ms" } ?? "total unknown"
        parts.append(timing.isEmpty ? total : total + " (" + timing.joined(separator: ", ") + ")")
        var bytes: [String] = []
        if let bytesSent { bytes.append("sent " + Self.bytes(bytesSent)) }
        if let bytesReceived { bytes.append("received " + Self.bytes(bytesReceived)) }
        if !bytes.isEmpty { parts.append(bytes.joined(separator: ", ")) }
        var connection: [String] = []
        if let protocolVersion { connection.append(protocolVersion == "2" ? "h2" : "http/" + protocolVersion) }
        if let reusedConnection { connection.append(reusedConnection ? "reused" : "new connection") }
        if redirectCount > 0 { connection.append("\(redirectCount) redirect\(redirectCount == 1 ? "" : "s")") }
        if !connection.isEmpty { parts.append(connection.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite else { return "?" }
        let milliseconds = (seconds * 10_000).rounded() / 10
        return milliseconds == milliseconds.rounded() ? String(Int(milliseconds)) : String(milliseconds)
    }

    private static func bytes(_ count: Int64) -> String {
        switch count {
        case ..<1024: "\(count) B"
        case ..<(1024 * 1024): String(format: "%.1f KB", Double(count) / 1024)
        default: String(format: "%.1f MB", Double(count) / (1024 * 1024))
        }
    }
}
