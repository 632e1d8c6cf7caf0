import Courier
import Foundation
import Testing

/// libcurl's words for a refused certificate or a refused tunnel, read into the `URLError`
/// codes Apple's `URLSession` uses (both transports read them on Linux).
@Suite("libcurl's failure texts")
struct LibcurlFailureTextTests {
    static let certificateTexts: [(String, URLError.Code)] = [
        ("SSL certificate problem: certificate has expired", .serverCertificateHasBadDate),
        ("SSL certificate problem: certificate is not yet valid", .serverCertificateNotYetValid),
        ("SSL certificate problem: unable to get local issuer certificate", .serverCertificateHasUnknownRoot),
        ("SSL certificate problem: self-signed certificate in certificate chain", .serverCertificateHasUnknownRoot),
        ("SSL certificate problem: self signed certificate in certificate chain", .serverCertificateHasUnknownRoot),
        ("SSL certificate problem: unable to verify the first certificate", .serverCertificateHasUnknownRoot),
        ("SSL certificate problem: self-signed certificate", .serverCertificateUntrusted),
        ("SSL certificate problem: self signed certificate", .serverCertificateUntrusted),
        (
            "SSL: no alternative certificate subject name matches target host name '127.0.0.1'",
            .serverCertificateUntrusted
        ),
        (
            "SSL: certificate subject name 'a.example' does not match target host name 'b.example'",
            .serverCertificateUntrusted
        ),
        ("SSL certificate problem: certificate revoked", .serverCertificateUntrusted),
        ("SSL peer certificate or SSH remote key was not OK", .serverCertificateUntrusted),
    ]

    @Test("each certificate failure libcurl names gets Apple's code", arguments: 0..<certificateTexts.count)
    func certificateText(_ index: Int) {
        let (text, code) = Self.certificateTexts[index]
        #expect(CertificateFailure(libcurlMessage: text)?.code == code, "\(text)")
    }

    @Test("a failure that is not about the certificate is left alone")
    func otherTexts() {
        for text in ["Out of memory", "Connection refused", "CONNECT tunnel failed, response 407", ""] {
            #expect(CertificateFailure(libcurlMessage: text) == nil, "\(text)")
        }
    }

    @Test("OpenSSL's verification results: expired, not yet valid, unknown root, self-signed, host mismatch")
    func verifyResults() {
        #expect(CertificateFailure(verifyResult: 0) == nil)
        #expect(CertificateFailure(verifyResult: 10)?.code == .serverCertificateHasBadDate)
        #expect(CertificateFailure(verifyResult: 9)?.code == .serverCertificateNotYetValid)
        for result in [2, 19, 20, 21] {
            #expect(CertificateFailure(verifyResult: result)?.code == .serverCertificateHasUnknownRoot)
        }
        #expect(CertificateFailure(verifyResult: 18) == .selfSigned)
        #expect(CertificateFailure(verifyResult: 62) == .wrongHost)
        #expect(CertificateFailure(verifyResult: 23)?.code == .serverCertificateUntrusted)
    }

    @Test("a refused CONNECT: 407 and 401 ask for credentials, anything else cannot reach the host")
    func proxyRefusals() {
        let proxyAuth = ProxyRefusal(libcurlMessage: "CONNECT tunnel failed, response 407")
        #expect(proxyAuth?.code == .userAuthenticationRequired)
        #expect(proxyAuth?.reason.contains("407 Proxy Authentication Required") == true)
        #expect(proxyAuth?.reason.contains("proxy credentials") == true)
        #expect(
            ProxyRefusal(libcurlMessage: "CONNECT tunnel failed, response 401")?.code == .userAuthenticationRequired)
        #expect(ProxyRefusal(libcurlMessage: "CONNECT tunnel failed, response 403")?.code == .cannotConnectToHost)
        #expect(
            ProxyRefusal(libcurlMessage: "Received HTTP code 407 from proxy after CONNECT")?.code
                == .userAuthenticationRequired)
        #expect(ProxyRefusal(libcurlMessage: "Received HTTP code 407 from the server") == nil)
        #expect(ProxyRefusal(status: 200) == nil)
        #expect(ProxyRefusal(status: 0) == nil)
    }
}
