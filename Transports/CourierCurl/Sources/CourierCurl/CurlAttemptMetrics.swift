// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import Foundation

/// What one request's hops cost, read from libcurl's timers and counters as each hop ends
/// (before its handle is reset), for the response's `TransferMetrics`. Under the driver lock.
///
/// libcurl's times are cumulative from the start of a hop (`CURLINFO_*_TIME_T`, in
/// microseconds): the phases are their differences, clamped at 0, and 0 on a reused
/// connection, which has no look-up, connect or handshake of its own. A redirect the transport
/// follows is part of the attempt: phases, totals and byte counts are summed over the hops, and
/// the first byte is the answer's, counted from the start of the first hop.
struct CurlAttemptMetrics {
    private var lookup: Int64 = 0
    private var connect: Int64 = 0
    private var handshake: Int64 = 0
    private var usedTLS = false
    private var firstByte: Int64 = 0
    private var total: Int64 = 0
    private var sent: Int64 = 0
    private var received: Int64 = 0
    private var connects = 0
    private var version = 0

    /// Adds the hop that just ended on `easy`, which went to `url`.
    mutating func add(hopOn easy: UnsafeMutableRawPointer, url: URL) {
        func value(_ info: CURLINFO) -> Int64 {
            var value: curl_off_t = 0
            return courier_easy_getinfo_off(easy, info, &value) == CURLE_OK ? max(0, Int64(value)) : 0
        }
        func number(_ info: CURLINFO) -> Int {
            var value = 0
            return courier_easy_getinfo_long(easy, info, &value) == CURLE_OK ? value : 0
        }
        let hopConnects = max(0, number(CURLINFO_NUM_CONNECTS))
        connects += hopConnects
        // On a reused connection libcurl's look-up timer only says when the connection was
        // picked: the hop had no look-up, connect or handshake of its own.
        if hopConnects > 0 {
            let lookedUp = value(CURLINFO_NAMELOOKUP_TIME_T)
            let connected = max(lookedUp, value(CURLINFO_CONNECT_TIME_T))
            let secured = value(CURLINFO_APPCONNECT_TIME_T)
            lookup += lookedUp
            connect += connected - lookedUp
            if secured > 0 { handshake += max(0, secured - connected) }
        }
        if !usedTLS, url.scheme?.lowercased() == "https" { usedTLS = true }
        firstByte = total + value(CURLINFO_STARTTRANSFER_TIME_T)
        total += value(CURLINFO_TOTAL_TIME_T)
        sent += value(CURLINFO_SIZE_UPLOAD_T)
        received += value(CURLINFO_SIZE_DOWNLOAD_T)
        version = number(CURLINFO_HTTP_VERSION)
    }

    /// The metrics of the hops added so far, `redirects` of them followed.
    func metrics(redirects: Int) -> TransferMetrics {
        TransferMetrics(
            domainLookup: Self.seconds(lookup), connect: Self.seconds(connect),
            secureConnection: usedTLS ? Self.seconds(handshake) : nil, timeToFirstByte: Self.seconds(firstByte),
            total: Self.seconds(max(total, firstByte)), bytesSent: sent, bytesReceived: received,
            reusedConnection: connects == 0, protocolVersion: Self.protocolVersion(version), redirectCount: redirects)
    }

    private static func seconds(_ microseconds: Int64) -> TimeInterval {
        Double(microseconds) / 1_000_000
    }

    /// OpenTelemetry's `network.protocol.version` for libcurl's `CURLINFO_HTTP_VERSION`.
    private static func protocolVersion(_ version: Int) -> String? {
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): "1.0"
        case Int(CURL_HTTP_VERSION_1_1): "1.1"
        case Int(CURL_HTTP_VERSION_2_0): "2"
        case Int(CURL_HTTP_VERSION_3): "3"
        default: nil
        }
    }
}

#endif
