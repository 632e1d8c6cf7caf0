import Foundation

/// Why a server's certificate was refused, as libcurl (under both transports on Linux) reports
/// it, and the `URLError` code Apple's `URLSession` uses for the same failure.
///
/// libcurl tells it in two ways: OpenSSL's verification result (`CURLINFO_SSL_VERIFYRESULT`,
/// an `X509_V_ERR_…` number), which CurlTransport reads, and the text of its error, "SSL
/// certificate problem: certificate has expired", which is all swift-corelibs-foundation
/// passes on (as `URLError(.unknown)`). A host name that does not match is libcurl's own check,
/// after OpenSSL's, and only its text tells it.
package enum CertificateFailure: Sendable, Equatable {
    /// The certificate's validity ended (`serverCertificateHasBadDate`, -1201).
    case expired
    /// The certificate's validity has not begun (`serverCertificateNotYetValid`, -1204).
    case notYetValid
    /// The certificate chains to a root the client does not trust, or its issuer is
    /// unknown (`serverCertificateHasUnknownRoot`, -1203).
    case unknownRoot
    /// The certificate is signed by itself and is not trusted
    /// (`serverCertificateUntrusted`, -1202).
    case selfSigned
    /// The certificate is for another host name (`serverCertificateUntrusted`, -1202, as
    /// Apple reports it).
    case wrongHost
    /// The public key does not match the pinned one (`serverCertificateUntrusted`, -1202).
    case pinMismatch
    /// Any other reason to refuse it (`serverCertificateUntrusted`, -1202).
    case untrusted

    /// The `URLError` code Apple's `URLSession` reports for this failure.
    package var code: URLError.Code {
        switch self {
        case .expired: .serverCertificateHasBadDate
        case .notYetValid: .serverCertificateNotYetValid
        case .unknownRoot: .serverCertificateHasUnknownRoot
        case .selfSigned, .wrongHost, .pinMismatch, .untrusted: .serverCertificateUntrusted
        }
    }

    /// What was wrong, for an error description.
    package var reason: String {
        switch self {
        case .expired: "the server's certificate has expired (or this machine's clock is wrong)"
        case .notYetValid: "the server's certificate is not valid yet (or this machine's clock is wrong)"
        case .unknownRoot: "the server's certificate is issued by an authority this client does not trust"
        case .selfSigned: "the server's certificate is self-signed and not trusted"
        case .wrongHost: "the server's certificate is for another host name"
        case .pinMismatch: "the server's public key does not match the pinned key"
        case .untrusted: "the server's certificate is not trusted"
        }
    }

    /// The failure OpenSSL's verification result `result` (an `X509_V_ERR_…` number, as
    /// `CURLINFO_SSL_VERIFYRESULT` gives it) names; `nil` for 0 (verified).
    package init?(verifyResult result: Int) {
        switch result {
        case 0: return nil
        // X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD
        case 10, 14: self = .expired
        // X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD
        case 9, 13: self = .notYetValid
        // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, …_SELF_SIGNED_CERT_IN_CHAIN,
        // …_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, …_UNABLE_TO_VERIFY_LEAF_SIGNATURE
        case 2, 19, 20, 21: self = .unknownRoot
        // X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT
        case 18: self = .selfSigned
        // X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH
        case 62, 64: self = .wrongHost
        default: self = .untrusted
        }
    }

    /// The failure libcurl's error text names ("SSL certificate problem: …", "SSL: no
    /// alternative certificate subject name matches target host name …"); `nil` when the
    /// text is not about the server's certificate.
    package init?(libcurlMessage message: String) {
        let text = message.lowercased()
        if text.contains("certificate has expired") {
            self = .expired
        } else if text.contains("certificate is not yet valid") {
            self = .notYetValid
        } else if text.contains("unable to get local issuer certificate") || text.contains("unable to get issuer")
            || text.contains("certificate in certificate chain") || text.contains("unable to verify the first")
        {
            self = .unknownRoot
        } else if text.contains("self-signed certificate") || text.contains("self signed certificate") {
            self = .selfSigned
        } else if text.contains("subject name") && text.contains("host name") {
            self = .wrongHost
        } else if text.contains("pinned public key") || text.contains("pinnedpubkey") {
            self = .pinMismatch
        } else if text.contains("ssl certificate problem") || text.contains("ssl peer certificate") {
            self = .untrusted
        } else {
            return nil
        }
    }
}
