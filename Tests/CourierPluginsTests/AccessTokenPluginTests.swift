import Courier
import CourierPlugins
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("AccessTokenPlugin")
struct AccessTokenPluginTests {
    let transport = ScriptedTransport()

    init() {
        transport.always(.status(200), for: .any)
    }

    @Test("signs with Bearer when the target does not say otherwise, and the closure sees the target")
    func bearer() async throws {
        struct Plain: TargetType {
            var baseURL: URL { URL(string: "https://api.example.com")! }
            var path: String { "me" }
            var method: HTTPMethod { .get }
            var task: RequestTask { .requestPlain }
            var headers: [String: String]? { nil }
        }
        let provider = Provider<Plain>.scripted(
            transport, plugins: [AccessTokenPlugin { target in "token-for-\(target.path)" }])

        _ = try await provider.request(Plain())

        #expect(transport.lastRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer token-for-me")
    }

    @Test("AccessTokenAuthorizable chooses the scheme, or no header at all")
    func schemes() async throws {
        let provider = Provider<PluginTestTarget>.scripted(transport, plugins: [AccessTokenPlugin { _ in "t0k" }])

        _ = try await provider.request(PluginTestTarget(authorizationType: .basic))
        _ = try await provider.request(PluginTestTarget(authorizationType: .custom("Token")))
        _ = try await provider.request(PluginTestTarget(authorizationType: nil))

        #expect(
            transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Basic t0k", "Token t0k", nil])
    }

    @Test("the header is set, not appended: a request prepared twice carries one Authorization")
    func setNotAppend() async throws {
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [AccessTokenPlugin { _ in "first" }, AccessTokenPlugin { _ in "second" }])

        _ = try await provider.request(PluginTestTarget(headers: ["Authorization": "Bearer stale"]))

        let request = try #require(transport.lastRequest)
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer second")
        #expect(request.allHTTPHeaderFields?.keys.filter { $0.lowercased() == "authorization" }.count == 1)
    }

    @Test("the token closure is read on every request, so a new token is used at once")
    func closureReadEachTime() async throws {
        let tokens = Collector<String>()
        let plugin = AccessTokenPlugin { _ in
            tokens.append("t")
            return "token-\(tokens.all.count)"
        }
        let provider = Provider<PluginTestTarget>.scripted(transport, plugins: [plugin])

        _ = try await provider.request(PluginTestTarget())
        _ = try await provider.request(PluginTestTarget())

        #expect(
            transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer token-1", "Bearer token-2",
            ])
    }
}
