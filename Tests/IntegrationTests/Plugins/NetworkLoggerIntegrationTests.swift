import Courier
import CourierPlugins
import CourierTestServer
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The logger against the real transport and the echo route, which sends every secret of the
/// request back in its JSON body: headers, query, form fields and the raw body.
@Suite("NetworkLoggerPlugin over the network", .timeLimit(.minutes(20)))
struct NetworkLoggerIntegrationTests {
    let server: TestServer

    init() async throws {
        server = try await TestServer.start()
    }

    /// Thread-safe line sink.
    final class Lines: Sendable {
        private let lines = LockIsolated<[String]>([])
        func append(_ new: [String]) { lines.withValue { $0 += new } }
        var all: [String] { lines.value }
    }

    @Test("no secret sent to /echo appears in the log, though the server echoes all of them")
    func echoedSecrets() async throws {
        defer { server.stop() }
        let lines = Lines()
        let logger = NetworkLoggerPlugin(
            configuration: .init(
                output: { _, items in lines.append(items) },
                logOptions: NetworkLoggerPlugin.Configuration.LogOptions.verbose.union(.formatRequestAscURL),
                maximumBodyLength: 100_000))
        let provider = Provider<ServerAPI>(plugins: [logger])
        let target = ServerAPI(
            server, "echo", method: .post,
            task: .requestCompositeParameters(
                bodyParameters: ["username": "ada", "password": "SECRET-PASSWORD", "client_secret": "SECRET-CLIENT"],
                bodyEncoding: URLEncoding.httpBody,
                urlParameters: ["access_token": "SECRET-QUERY"]),
            headers: [
                "Authorization": "Bearer SECRET-BEARER", "Cookie": "session=SECRET-COOKIE",
                "Proxy-Authorization": "Basic SECRET-PROXY",
            ])

        let response = try await provider.request(target)

        // The server did receive (and echo) every secret…
        let echoed = String(decoding: response.data, as: UTF8.self)
        for secret in ["SECRET-PASSWORD", "SECRET-CLIENT", "SECRET-QUERY", "SECRET-BEARER", "SECRET-COOKIE"] {
            #expect(echoed.contains(secret))
        }
        // …and the log shows none of them.
        let log = lines.all.joined(separator: "\n")
        for secret in [
            "SECRET-PASSWORD", "SECRET-CLIENT", "SECRET-QUERY", "SECRET-BEARER", "SECRET-COOKIE", "SECRET-PROXY",
        ] {
            #expect(!log.contains(secret), "\(secret) leaked:\n\(log)")
        }
        #expect(log.contains("Response Body: "))
        // The echoed JSON is printed as the server wrote it, only secret values replaced.
        #expect(log.contains(#""username": ["ada"]"#))
    }
}
