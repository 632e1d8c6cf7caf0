// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A refused server certificate, under the code Apple's `URLSession` gives it: OpenSSL's
/// verification result tells an expired certificate from one not valid yet, a self-signed one
/// or one from an unknown authority; libcurl's text tells a host name that does not match.
extension CurlTransfer {
    /// The error for `result` when libcurl refused the server's certificate; `nil` for any
    /// other failure.
    func certificateError(_ result: CURLcode, message: String) -> URLError? {
        let failure: CertificateFailure
        switch result {
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            failure = .pinMismatch
        case CURLE_PEER_FAILED_VERIFICATION:
            var verifyResult = 0
            if let easy, courier_easy_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &verifyResult) != CURLE_OK {
                verifyResult = 0
            }
            failure =
                CertificateFailure(verifyResult: verifyResult) ?? CertificateFailure(libcurlMessage: message)
                ?? .untrusted
        default:
            return nil
        }
        return urlError(
            failure.code, "\(failure.reason); nothing was sent (\(message), libcurl error \(result.rawValue)).",
            reason: failure.reason)
    }

    /// ``urlError(_:_:underlying:)`` that also carries `reason`, which `CourierError`'s
    /// description then says (`FailureReason`).
    func urlError(_ code: URLError.Code, _ description: String, reason: String) -> URLError {
        var info = urlError(code, description).userInfo
        info[FailureReason.userInfoKey] = reason
        return URLError(code, userInfo: info)
    }
}

#endif
