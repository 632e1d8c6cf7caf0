import Courier
import CourierPlugins
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("CredentialsPlugin")
struct CredentialsPluginTests {
    let transport = ScriptedTransport()

    init() {
        transport.always(.status(200), for: .any)
    }

    @Test("sends HTTP Basic built from the closure's credential")
    func basic() async throws {
        let plugin = CredentialsPlugin { _ in URLCredential(user: "ada", password: "pä:ss", persistence: .none) }
        let provider = Provider<PluginTestTarget>.scripted(transport, plugins: [plugin])

        _ = try await provider.request(PluginTestTarget())

        let header = try #require(transport.lastRequest?.value(forHTTPHeaderField: "Authorization"))
        #expect(header == "Basic " + Data("ada:pä:ss".utf8).base64EncodedString())
        let decoded = Data(base64Encoded: String(header.dropFirst("Basic ".count))).map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(decoded == "ada:pä:ss")
    }

    @Test("no credential, no header; a credential replaces an earlier Authorization")
    func perTarget() async throws {
        let plugin = CredentialsPlugin { target in
            target.path == "admin" ? URLCredential(user: "root", password: "pw", persistence: .none) : nil
        }
        let provider = Provider<PluginTestTarget>.scripted(transport, plugins: [plugin])

        _ = try await provider.request(PluginTestTarget(path: "public"))
        _ = try await provider.request(PluginTestTarget(path: "admin", headers: ["Authorization": "Bearer old"]))

        #expect(
            transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                nil, "Basic " + Data("root:pw".utf8).base64EncodedString(),
            ])
    }

    @Test("the logger hides the Basic credential")
    func redactedInLogs() async throws {
        let lines = Collector<String>()
        let provider = Provider<PluginTestTarget>.scripted(
            transport,
            plugins: [
                CredentialsPlugin { _ in URLCredential(user: "ada", password: "hunter2", persistence: .none) },
                NetworkLoggerTestSupport.logger(lines, options: [.requestHeaders, .formatRequestAscURL]),
            ])

        _ = try await provider.request(PluginTestTarget())

        let encoded = Data("ada:hunter2".utf8).base64EncodedString()
        #expect(!lines.all.joined().contains(encoded))
        #expect(lines.all.contains(#"Request Headers: ["Authorization": "<redacted>"]"#))
    }
}
