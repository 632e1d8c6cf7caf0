import Courier
import CourierPlugins
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("NetworkLoggerPlugin output people read")
struct NetworkLoggerReadabilityTests {
    let transport = ScriptedTransport()
    let lines = Collector<String>()

    @Test("quotes inside header values are escaped: one line, one way to read it")
    func quotedHeaderValues() async throws {
        transport.always(
            .json(
                #"{"error":"invalid_token"}"#, statusCode: 401,
                headers: [
                    "WWW-Authenticate": #"Bearer realm="api", error="invalid_token", error_description="expired""#
                ]),
            for: .any)
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: [.responseHeaders])])

        _ = try await provider.request(PluginTestTarget())

        let headers = try #require(lines.all.first { $0.hasPrefix("Response Headers: ") })
        #expect(
            headers
                == #"Response Headers: ["Content-Type": "application/json", "WWW-Authenticate": "Bearer realm=\"api\", error=\"invalid_token\", error_description=\"expired\""]"#
        )
    }

    @Test("headers whose names suggest a credential are redacted by default")
    func credentialHeaders() async throws {
        transport.always(.json("{}", headers: ["X-Session-Id": "sess-SECRET", "X-Request-Id": "req-1"]), for: .any)
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: .default.union(.formatRequestAscURL))])

        _ = try await provider.request(
            PluginTestTarget(headers: [
                "Access-Token": "at-SECRET", "X-Api-Key": "key-SECRET", "X-Auth-Token": "xa-SECRET",
            ]))

        let log = lines.all.joined(separator: "\n")
        for secret in ["sess-SECRET", "at-SECRET", "key-SECRET", "xa-SECRET"] {
            #expect(!log.contains(secret), "\(secret) leaked:\n\(log)")
        }
        #expect(
            lines.all.contains(
                #"Request Headers: ["Access-Token": "<redacted>", "X-Api-Key": "<redacted>", "X-Auth-Token": "<redacted>"]"#
            ))
        #expect(
            lines.all.contains(
                #"Response Headers: ["Content-Type": "application/json", "X-Request-Id": "req-1", "X-Session-Id": "<redacted>"]"#
            ))
    }

    @Test("a JSON body is printed as the server sent it: key order, numbers and layout kept")
    func jsonBodyAsSent() async throws {
        let body = #"{"zeta": 1.50, "alpha": [3, 2, 1], "refresh_token": "rt-SECRET", "big": 9007199254740993}"#
        transport.always(.json(body), for: .any)
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: [.successResponseBody])])

        _ = try await provider.request(PluginTestTarget())

        #expect(
            lines.all.last
                == #"Response Body: {"zeta": 1.50, "alpha": [3, 2, 1], "refresh_token": "<redacted>", "big": 9007199254740993}"#
        )
    }

    @Test("the error line uses the logger's redaction: its list, or none for local debugging")
    func errorLine() async throws {
        transport.always(.failure(URLError(.timedOut)), for: .any)
        let target = PluginTestTarget(
            task: .requestParameters(parameters: ["otp": "123456"], encoding: URLEncoding.queryString))
        let strict = NetworkLoggerTestSupport.logger(
            lines, options: [], redaction: NetworkLoggerPlugin.Redaction.default.adding(keys: ["otp"]))
        await #expect(throws: CourierError.self) {
            try await Provider<PluginTestTarget>.scripted(self.transport, plugins: [strict]).request(target)
        }
        #expect(
            lines.all.last
                == "Error: GET https://api.example.com/v1/items?otp=<redacted> failed: timed out waiting for api.example.com:443 (URLError -1001)."
        )

        let unredacted = NetworkLoggerTestSupport.logger(lines, options: [.formatRequestAscURL], redaction: .none)
        await #expect(throws: CourierError.self) {
            try await Provider<PluginTestTarget>.scripted(self.transport, plugins: [unredacted])
                .request(PluginTestTarget(headers: ["Authorization": "Bearer local-token"]))
        }
        #expect(
            lines.all.contains("cURL: curl -H 'Authorization: Bearer local-token' 'https://api.example.com/v1/items'"))
    }
}
