// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Foundation

/// An idempotent request on an HTTP/2 stream the server never processed is sent again, once,
/// on a new connection.
///
/// A server that sends `GOAWAY` declares every stream above its last-stream-id unprocessed
/// (RFC 9113 §6.8), and a `REFUSED_STREAM` reset says the same of one stream (§8.7). libcurl
/// resends a refused stream itself, but a stream caught on a connection that is going away
/// can instead fail with `CURLE_HTTP2` ("Error in the HTTP2 framing layer") before any answer
/// arrived. Such a request is sent again on a fresh connection if it is idempotent; a POST
/// never is (the transport refuses any resend of a non-idempotent request, see
/// `willSendRequest()`).
extension CurlTransfer {
    /// How many times a hop is sent again after its stream went unprocessed.
    static let maximumUnprocessedResends = 1

    /// Whether the hop that failed with `result` (libcurl's `message`) may be sent again on a
    /// new connection: it is idempotent, nothing of its answer arrived, and the failure is
    /// HTTP/2's own.
    func mayResendUnprocessed(_ result: CURLcode, message: String) -> Bool {
        guard plan.isIdempotent, failure == nil, !head.isComplete, receivedBytes == 0,
            unprocessedResends < Self.maximumUnprocessedResends
        else { return false }
        switch result {
        case CURLE_HTTP2: return true
        case CURLE_HTTP2_STREAM: return message.contains("REFUSED_STREAM")
        default: return false
        }
    }
}

#endif
