import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A streamed response that received nothing for its idle time-out while the reader waited;
/// the connection was closed.
public struct StreamIdleTimeout: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request whose stream went quiet: its method and redacted URL.
    public let request: String
    /// How long the stream was quiet.
    public let idleTimeout: Duration
    /// How many body bytes had arrived before it went quiet.
    public let receivedBytes: Int

    /// Makes the error for `request`'s stream that was quiet for `idleTimeout` after
    /// `receivedBytes` bytes.
    public init(request: String, idleTimeout: Duration, receivedBytes: Int) {
        self.request = request
        self.idleTimeout = idleTimeout
        self.receivedBytes = receivedBytes
    }

    /// What happened, in words.
    public var description: String {
        "the stream of \(request) received nothing for \(idleTimeout) after \(receivedBytes) bytes; it was closed"
    }

    /// A request's method and redacted URL, worked out once when the stream starts.
    struct RequestName: Sendable {
        let text: String
        init(_ request: URLRequest) {
            text =
                "\(request.httpMethod ?? "GET") "
                + (request.url.map { Redaction.default.redact(url: $0) } ?? "(no URL)")
        }
    }
}
