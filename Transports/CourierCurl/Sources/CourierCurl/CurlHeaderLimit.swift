// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response head larger than libcurl accepts, said as the server's fault.
///
/// libcurl keeps a header line of at most 100 KiB (`CURL_MAX_HTTP_HEADER`); past it, it fails
/// the transfer with `CURLE_OUT_OF_MEMORY` ("Out of memory") and often no message. Nothing ran
/// out of memory: the server sent more than the client accepts, which is a bad server response
/// (`cannotLoadFromNetwork` stays reserved for a process out of file descriptors).
extension CurlTransfer {
    /// libcurl's limit on one header line, in bytes.
    static let maximumHeaderLine = 100 * 1024

    /// The error for a hop that libcurl failed as out of memory while its head was still
    /// arriving; `nil` for any other failure.
    func oversizedHeadError(_ result: CURLcode, message: String) -> URLError? {
        guard result == CURLE_OUT_OF_MEMORY, !head.isComplete else { return nil }
        let reason =
            "the server sent a response header larger than the client accepts (a header line over "
            + "\(Self.maximumHeaderLine / 1024) KiB); the response was not read"
        return urlError(
            .badServerResponse, "\(reason) (\(message), libcurl error \(result.rawValue)).", reason: reason)
    }
}

#endif
