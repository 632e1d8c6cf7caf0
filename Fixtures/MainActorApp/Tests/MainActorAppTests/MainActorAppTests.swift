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

    @Test("a DPoP session signs in from main-actor code with the closure form, and its requests carry proofs")
    func dpopSession() async throws {
        let transport = ScriptedTransport()
        transport.always(.json(#"{"name":"Ada","email":"a@b"}"#), for: .get("/v1/me"))
        let session = AuthSession(refresh: { $0 }, dpop: StandInKeys())
        let screen = SignInScreen()
        try await session.signIn {
            // Runs on the main actor, where it was written: it may touch the app's UI state.
            screen.attempts += 1
            return OAuthToken(accessToken: "bound", refreshToken: "r", tokenType: "DPoP")
        }
        #expect(screen.attempts == 1)
        _ = try await RefreshableProvider<API>(auth: session, transport: transport).request(.me)
        #expect(transport.lastRequest?.value(forHTTPHeaderField: "Authorization") == "DPoP bound")
        #expect(transport.lastRequest?.value(forHTTPHeaderField: "DPoP")?.split(separator: ".").count == 3)
    }

    @Test("a stubbed provider answers from sample data")
    func stubbed() async throws {
        let provider = Provider<API>(stubClosure: Provider.immediatelyStub)
        let response = try await provider.request(.me)
        #expect(try response.map(Profile.self).name == "Ada")
    }
}

/// Main-actor state, as a sign-in screen's view model holds it.
final class SignInScreen {
    var attempts = 0
}

/// Keys without cryptography, written in an app target whose default isolation is the main
/// actor: a key factory is used from the session's own tasks, so it is declared `nonisolated`.
nonisolated struct StandInKeys: DPoPKeyFactory {
    struct Key: DPoPKey {
        let publicJWK = try! DPoPPublicJWK(x: Data(repeating: 1, count: 32), y: Data(repeating: 2, count: 32))
        func sign(_ signingInput: Data) async throws -> Data { Data(repeating: 3, count: 64) }
        func sha256(_ data: Data) throws -> Data { Data(repeating: 4, count: 32) }
    }

    func makeKey() async throws -> any DPoPKey { Key() }
    func exportKey(_ key: any DPoPKey) throws -> Data { Data("stand-in".utf8) }
    func importKey(_ data: Data) throws -> any DPoPKey { Key() }
}
