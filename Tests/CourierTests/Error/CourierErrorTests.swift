import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("CourierError")
struct CourierErrorTests {
    @Test("every case has a readable description and the right response accessor")
    func descriptions() {
        let response = Response(statusCode: 418, data: Data("teapot".utf8))
        struct Boom: Error {}
        let cases: [(CourierError, String, Int?)] = [
            (.jsonMapping(response), "JSON", 418),
            (.stringMapping(response), "string", 418),
            (.objectMapping(Boom(), response), "decode", 418),
            (.encodableMapping(Boom()), "encode", nil),
            (.statusCode(response), "got status 418", 418),
            (.underlying(URLError(.timedOut), nil), "timed out", nil),
            (.requestMapping("::"), "URL request", nil),
            (.parameterEncoding(Boom()), "parameters", nil),
            (.authentication(.sessionExpired), "sign in again", nil),
            (.cancelled, "cancelled", nil),
        ]
        for (error, fragment, status) in cases {
            #expect(error.description.contains(fragment), "\(error.description)")
            #expect(error.errorDescription == error.description)
            #expect(error.response?.statusCode == status)
        }
    }

    @Test("descriptions never contain tokens from URLs or bodies")
    func noSecrets() {
        struct Leaky: Error, CustomStringConvertible {
            var description: String {
                #"failed for https://x.test/cb?code_verifier=abc123&access_token=tok-SECRET1 with {"refresh_token":"rt-SECRET2"} and Bearer tok-SECRET3"#
            }
        }
        let errors: [CourierError] = [
            .underlying(Leaky(), nil),
            .requestMapping("https://x.test/cb?access_token=tok-SECRET1"),
            .authentication(.refreshFailed(Leaky())),
            .objectMapping(Leaky(), Response(statusCode: 200, data: Data())),
        ]
        for error in errors {
            for secret in ["tok-SECRET1", "rt-SECRET2", "tok-SECRET3", "abc123"] {
                #expect(!error.description.contains(secret), "\(error.description)")
            }
        }
    }

    @Test("wrapping maps cancellation and authentication errors to their cases")
    func wrapping() {
        #expect(CourierError(CancellationError()).isCancelled)
        #expect(CourierError(URLError(.cancelled)).isCancelled)
        #expect(CourierError(AuthenticationError.cancelled).isCancelled)
        if case .authentication(.sessionExpired) = CourierError(AuthenticationError.sessionExpired) {
        } else {
            Issue.record("sessionExpired was not wrapped as authentication")
        }
        if case .statusCode = CourierError(CourierError.statusCode(Response(statusCode: 1, data: Data()))) {
        } else {
            Issue.record("a CourierError was re-wrapped")
        }
    }
}
