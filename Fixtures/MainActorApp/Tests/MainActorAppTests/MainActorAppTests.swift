import Courier
import CourierTesting
import Foundation
import MainActorApp
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Tests as a new app target's test target writes them: main-actor isolated by default.
@Suite("An app with default main-actor isolation")
struct MainActorAppTests {
    @Test("the app's scenario: refresh, replay, completion form, JSON body, unsigned targets, stubs")
    func scenario() async {
        let failures = await runScenario()
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("a target whose authorizationType is nil is never signed, even on a provider that signs")
    func unsignedTarget() async throws {
        let transport = ScriptedTransport()
        transport.always(.json("[]"), for: .get("/v1/feed"))
        transport.always(.json(#"{"name":"Ada","email":"a@b"}"#), for: .get("/v1/me"))
        let session = AuthSession(refresh: { $0 })
        try await session.signIn(OAuthToken(accessToken: "secret", refreshToken: nil, tokenType: "Bearer"))
        let provider = RefreshableProvider<API>(auth: session, transport: transport)
        for _ in 0..<20 {
            _ = try await provider.request(.publicFeed)
            _ = try await provider.request(.me)
        }
        let feed = transport.requests(matching: .get("/v1/feed"))
        let me = transport.requests(matching: .get("/v1/me"))
        #expect(feed.count == 20 && feed.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == nil })
        #expect(me.count == 20 && me.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == "Bearer secret" })
    }

    @Test("a stubbed provider answers from sample data")
    func stubbed() async throws {
        let provider = Provider<API>(stubClosure: Provider.immediatelyStub)
        let response = try await provider.request(.me)
        #expect(try response.map(Profile.self).name == "Ada")
    }
}
