import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

#if CurlTransport
    import CourierCurl
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A refused server certificate fails with the `URLError` code Apple's `URLSession` gives it,
/// and the telemetry span says `error.type` `tls`.
///
/// The servers (Tests/Server/certificate_faults.py) serve throw-away certificates made with
/// the `openssl` command: a test CA signs a valid, an expired, a not-yet-valid and a wrong-host
/// certificate; one is self-signed; one comes from another CA. `CurlTransport` is told to trust
/// the test CA, so it sees each fault itself. `URLSession` on Linux cannot be given a CA: to it
/// every certificate of the test CA has an unknown root, which is what it must say.
@Suite("Certificate failures get their URLError codes", .serialized, .timeLimit(.minutes(20)))
struct CertificateFailureTests {
    /// The servers' certificates, by the name of their fault.
    enum Certificate: String, CaseIterable, Sendable {
        case valid, expired, notYetValid = "not-yet-valid", wrongHost = "wrong-host", selfSigned = "self-signed"
        case unknownRoot = "unknown-root"
    }

    private static let servers = Task { try await HelperServer.start("certificate_faults.py") }

    /// A transport of `kind` that trusts the test CA where it can be told to.
    static func transport(_ kind: TransportUnderTest, authority: URL) -> any HTTPTransport {
        switch kind {
        case .urlSession:
            return kind.make(timeout: 30)
        #if CurlTransport
            case .curl:
                return CurlTransport(
                    configuration: TransportUnderTest.curlConfiguration {
                        $0.certificateAuthorities = authority
                        $0.timeoutIntervalForRequest = 30
                    })
        #endif
        }
    }

    /// What `kind` must report for `certificate`: `nil` for a success.
    static func expected(_ kind: TransportUnderTest, _ certificate: Certificate) -> URLError.Code? {
        let trustsTestCA = kind != .urlSession
        switch certificate {
        case .valid: return trustsTestCA ? nil : .serverCertificateHasUnknownRoot
        case .expired: return trustsTestCA ? .serverCertificateHasBadDate : .serverCertificateHasUnknownRoot
        case .notYetValid: return trustsTestCA ? .serverCertificateNotYetValid : .serverCertificateHasUnknownRoot
        case .wrongHost: return trustsTestCA ? .serverCertificateUntrusted : .serverCertificateHasUnknownRoot
        case .selfSigned: return .serverCertificateUntrusted
        case .unknownRoot: return .serverCertificateHasUnknownRoot
        }
    }

    @Test(
        "expired → serverCertificateHasBadDate, not yet valid → serverCertificateNotYetValid, unknown root → serverCertificateHasUnknownRoot, self-signed or wrong host → serverCertificateUntrusted; error.type tls; nothing sent",
        arguments: TransportUnderTest.allCases, Certificate.allCases)
    func certificateCodes(_ kind: TransportUnderTest, certificate: Certificate) async throws {
        let servers = try await Self.servers.value
        let authority = URL(fileURLWithPath: servers.fields[0])
        let telemetry = ErrorTypeTelemetry()
        let provider = Provider<PlainURLTarget>(
            transport: Self.transport(kind, authority: authority), plugins: [TelemetryPlugin(telemetry)])
        let target = PlainURLTarget(
            baseURL: URL(string: "https://127.0.0.1:\(try servers.port(certificate.rawValue))")!, path: "hello")
        let result = await outcome(provider, target)

        guard let code = Self.expected(kind, certificate) else {
            #expect(try result.get().statusCode == 200)
            return
        }
        #expect(urlErrorCode(result) == code, "\(result)")
        #expect(telemetry.errorTypes == ["tls"])
        if case .failure(let error) = result {
            let description = String(describing: error)
            #expect(description.contains("certificate") || description.contains("public key"), "\(description)")
            #expect(!description.contains("URLError -1)"), "\(description)")
        }
    }

    /// A target at any URL.
    struct PlainURLTarget: TargetType {
        let baseURL: URL
        let path: String
        var method: HTTPMethod = .get
        var task: RequestTask = .requestPlain
        var headers: [String: String]? = nil
    }

    /// Records the `error.type` of every attempt that failed.
    final class ErrorTypeTelemetry: RequestTelemetry {
        private let recorded = LockIsolated<[String]>([])

        /// The `error.type` of each failed attempt, in order.
        var errorTypes: [String] { recorded.value }

        func attemptStarted(_ attempt: TelemetryAttempt) -> any TelemetrySpan {
            Span(recorded: recorded)
        }

        private struct Span: TelemetrySpan {
            let recorded: LockIsolated<[String]>

            func end(_ outcome: TelemetryOutcome) {
                guard case .string(let type)? = outcome.attributes[TelemetryKey.errorType] else { return }
                recorded.withValue { $0.append(type) }
            }
        }
    }
}
