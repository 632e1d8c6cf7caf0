// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import Foundation

/// A request that a ``CurlTransport`` could not send, or could not finish, because the
/// transport was closed with ``CurlTransport/close()``.
///
/// The description names the request (its method and its URL with secrets hidden); it never
/// holds a header's value.
public struct CurlTransportClosedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request's method.
    public let method: String
    /// The request's URL, as text with the password and secret query fields hidden.
    public let url: String
    /// Whether the request was in flight when the transport closed (it may have reached the
    /// server); `false` when it was sent after the close and nothing went out.
    public let wasInFlight: Bool

    /// An error for the request `method` `url`.
    public init(method: String, url: URL, wasInFlight: Bool) {
        self.method = method
        self.url = Redaction.default.redact(url: url)
        self.wasInFlight = wasInFlight
    }

    /// What happened to which request.
    public var description: String {
        wasInFlight
            ? "\(method) \(url) was cut short: its CurlTransport was closed while it was in flight "
                + "(it may have reached the server)."
            : "\(method) \(url) was not sent: its CurlTransport is closed."
    }
}

#endif
