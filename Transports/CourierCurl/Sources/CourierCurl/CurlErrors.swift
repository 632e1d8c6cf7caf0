// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// libcurl's result codes as the `URLError`s `URLSession` reports for the same failures, so
/// code that handles one transport's errors handles the other's.
enum CurlErrors {
    static func code(for result: CURLcode) -> URLError.Code {
        switch result {
        case CURLE_UNSUPPORTED_PROTOCOL: .unsupportedURL
        case CURLE_URL_MALFORMAT: .badURL
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .cannotFindHost
        case CURLE_COULDNT_CONNECT: .cannotConnectToHost
        case CURLE_OPERATION_TIMEDOUT: .timedOut
        case CURLE_GOT_NOTHING: .networkConnectionLost
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_SEND_FAIL_REWIND: .networkConnectionLost
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP3: .badServerResponse
        // An HTTP/2 stream reset before a whole answer arrived: what a connection closed
        // mid-answer is over HTTP/1.1. (libcurl does not say who reset it, or why, except in
        // its message: a proxy whose server dropped the connection resets with
        // PROTOCOL_ERROR too.)
        case CURLE_HTTP2_STREAM: .networkConnectionLost
        case CURLE_BAD_CONTENT_ENCODING: .cannotDecodeContentData
        case CURLE_TOO_MANY_REDIRECTS: .httpTooManyRedirects
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_PINNEDPUBKEYNOTMATCH: .serverCertificateUntrusted
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_CERTPROBLEM:
            .secureConnectionFailed
        case CURLE_SSL_CACERT_BADFILE: .clientCertificateRejected
        case CURLE_FILESIZE_EXCEEDED: .dataLengthExceedsMaximum
        case CURLE_ABORTED_BY_CALLBACK: .cancelled
        case CURLE_OUT_OF_MEMORY: .cannotLoadFromNetwork
        default: .unknown
        }
    }

    /// What an `errno` of descriptor exhaustion means, or `nil` for any other.
    static func descriptorExhaustion(errno: Int32) -> String? {
        switch errno {
        case EMFILE:
            var limit = rlimit()
            let soft = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? " (\(limit.rlim_cur))" : ""
            return "The process has run out of file descriptors: it holds as many as its limit\(soft) allows "
                + "(raise `ulimit -n`, or lower CurlTransport.Configuration.maximumConnections)"
        case ENFILE:
            return "The system has run out of file descriptors (the kernel's limit on open files is reached)"
        default:
            return nil
        }
    }

    /// `url` without its user, password, query and fragment, which may carry secrets: for
    /// error descriptions.
    static func redacted(_ url: URL) -> String {
        url.locationWithoutSecrets
    }
}

/// Monotonic time in nanoseconds, for the loop's time-outs.
enum CurlClock {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

#endif
