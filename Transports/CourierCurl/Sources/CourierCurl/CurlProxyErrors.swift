// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A proxy that refused to open a tunnel, said as such (`ProxyRefusal`): libcurl reports it
/// as a failed receive, which would read as a lost connection, and keeps the proxy's answer to
/// the `CONNECT` in `CURLINFO_HTTP_CONNECTCODE`.
extension CurlTransfer {
    /// The error for a failed hop whose `CONNECT` the proxy refused; `nil` for any other
    /// failure.
    func proxyRefusalError(_ result: CURLcode, message: String) -> URLError? {
        // libcurl hands the proxy's answer to the header callback too: whether a head arrived
        // says nothing here; the `CONNECT` code does.
        var connectCode = 0
        if let easy, courier_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &connectCode) != CURLE_OK {
            connectCode = 0
        }
        guard let refusal = ProxyRefusal(status: connectCode) ?? ProxyRefusal(libcurlMessage: message) else {
            return nil
        }
        return urlError(
            refusal.code, "\(refusal.reason); the request was not sent (\(message), libcurl error \(result.rawValue)).",
            reason: refusal.reason)
    }
}

#endif
