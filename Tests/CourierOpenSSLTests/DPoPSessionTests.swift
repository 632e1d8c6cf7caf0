// Compiled only with the OpenSSLSigning trait (see Package.swift); empty without it.
#if OpenSSLSigning

import Courier
import CourierOpenSSL
import CourierTesting
import CourierTestServer
import CourierTestServerTargets
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// DPoP sessions (`AuthSession(dpop:)`) against the test server's DPoP mode, which checks every
/// proof with Python's `cryptography` and binds its tokens to the key (`cnf.jkt`): what an app
/// whose API turned on DPoP relies on — one option on the session, and nothing else changes.
@Suite("DPoP sessions against a server that enforces RFC 9449", .timeLimit(.minutes(5)))
struct DPoPSessionTests {
    /// The test server's API, signed with the session's token.
    struct ItemsAPI: TargetType {
        enum Kind {
            case list
            case create(String)
        }

        let base: URL
        let kind: Kind

        var baseURL: URL { base }
        var path: String { "api/items" }
        var method: HTTPMethod {
            switch kind {
            case .list: .get
            case .create: .post
            }
        }
        var task: RequestTask {
            switch kind {
            case .list: .requestPlain
            case .create(let name): .requestParameters(parameters: ["name": name], encoding: JSONEncoding.default)
            }
        }
        var headers: [String: String]? { nil }
    }

    /// A server, a token file of its own, and a clock the sessions read expiry from.
    final class Fixture: Sendable {
        let server: TestServer
        let folder: URL
        let tokens = Provider<TokenEndpoint>()
        let clock = LockIsolated(Date())

        init(nonces: Bool, nonceUses: Int = 0, lifetime: TimeInterval? = 3600) async throws {
            server = try await TestServer.start(tokenLifetime: lifetime)
            var changes = TestServerConfig(reuseDetection: true)
            changes.dpop = .init(nonceFromTokenEndpoint: nonces, nonceFromAPI: nonces, nonceUses: nonceUses)
            try await server.configure(changes)
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("dpop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        deinit {
            server.stop()
            try? FileManager.default.removeItem(at: folder)
        }

        var tokenFile: URL { folder.appendingPathComponent("token.json") }

        /// A DPoP session on the fixture's token file (its own `FileTokenStore`, as another
        /// process's would be), refreshing through the token endpoint.
        func session() -> AuthSession {
            let tokens = self.tokens
            let base = server.baseURL
            let clock = self.clock
            return AuthSession(
                store: FileTokenStore(url: tokenFile),
                refresh: { token in
                    try OAuthToken(
                        response: await tokens.request(
                            TokenEndpoint(base: base, grant: .refresh(token.refreshToken ?? ""))))
                },
                now: { clock.value },
                dpop: OpenSSLP256Key.Factory())
        }

        func provider(_ session: AuthSession) -> RefreshableProvider<ItemsAPI> {
            RefreshableProvider(auth: session)
        }

        var list: ItemsAPI { ItemsAPI(base: server.baseURL, kind: .list) }

        func create(_ name: String) -> ItemsAPI { ItemsAPI(base: server.baseURL, kind: .create(name)) }

        /// Signs in with the password grant, through the session's sign-in helper.
        @discardableResult
        func signIn(_ session: AuthSession) async throws -> OAuthToken {
            let tokens = self.tokens
            let base = server.baseURL
            return try await session.signIn {
                try OAuthToken(
                    response: await tokens.request(
                        TokenEndpoint(base: base, grant: .password(username: "u", password: "p"))))
            }
        }
    }

    @Test("a sign-in binds the tokens to a new key kept in the store; requests carry proofs and answer each nonce once")
    func signInAndRequests() async throws {
        let fixture = try await Fixture(nonces: true)
        let session = fixture.session()
        let token = try await fixture.signIn(session)
        #expect(token.tokenType == "DPoP")
        let stored = try #require(try FileTokenStore(url: fixture.tokenFile).load())
        #expect(stored.dpopKey != nil)
        #expect(stored.dpopKey == token.dpopKey)
        #expect(!String(describing: stored).contains(stored.accessToken))

        let provider = fixture.provider(session)
        for _ in 0..<3 {
            #expect(try await provider.request(fixture.list).statusCode == 200)
        }
        let counters = try await fixture.server.counters()
        // One challenge from the token endpoint (at sign-in), one from the API (first request).
        #expect(counters.dpopNonceChallenges == 2)
        #expect(counters.dpopBoundIssued == 1)
        #expect(counters.dpopProofRejections == 0)
        #expect(counters.dpopBearerMisuses == 0)
        #expect(counters.protectedOK == 3)
    }

    @Test("a rejected token is refreshed once with the key's proof and replayed; the renewed token keeps the key")
    func reactiveRefresh() async throws {
        for _ in 0..<3 {
            let fixture = try await Fixture(nonces: true)
            let session = fixture.session()
            let signedIn = try await fixture.signIn(session)
            let provider = fixture.provider(session)
            #expect(try await provider.request(fixture.list).statusCode == 200)
            #expect(try await fixture.server.expireAccessTokens() >= 1)

            let responses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await provider.request(fixture.list).statusCode } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses == Array(repeating: 200, count: 8))
            let counters = try await fixture.server.counters()
            #expect(counters.refreshSuccesses == 1)
            #expect(counters.refreshTokenReuses == 0)
            #expect(counters.dpopProofRejections == 0)
            let renewed = try #require(await session.token)
            #expect(renewed.accessToken != signedIn.accessToken)
            #expect(renewed.dpopKey == signedIn.dpopKey)
            #expect(try FileTokenStore(url: fixture.tokenFile).load()?.dpopKey == signedIn.dpopKey)
        }
    }

    @Test("a token about to expire is refreshed before the request, with a proof, and no nonce challenge is a refresh")
    func proactiveRefresh() async throws {
        let fixture = try await Fixture(nonces: true, lifetime: 600)
        let session = fixture.session()
        try await fixture.signIn(session)
        let provider = fixture.provider(session)
        #expect(try await provider.request(fixture.list).statusCode == 200)
        fixture.clock.withValue { $0 += 590 }
        #expect(try await provider.request(fixture.list).statusCode == 200)
        let counters = try await fixture.server.counters()
        #expect(counters.refreshSuccesses == 1)
        #expect(counters.dpopProofRejections == 0)
    }

    @Test("32 concurrent requests meeting a new nonce are each sent again once, with no refresh", arguments: 0..<4)
    func concurrentNonceChallenge(round: Int) async throws {
        let fixture = try await Fixture(nonces: true)
        let session = fixture.session()
        try await fixture.signIn(session)
        let provider = fixture.provider(session)
        #expect(try await provider.request(fixture.list).statusCode == 200)
        var changes = TestServerConfig()
        changes.dpop = .init(rotate: ["rs"])
        try await fixture.server.configure(changes)
        let before = try await fixture.server.counters()

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<32 { group.addTask { try await provider.request(fixture.list).statusCode } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 32))
        let after = try await fixture.server.counters()
        let challenges = after.dpopNonceChallenges - before.dpopNonceChallenges
        #expect((1...32).contains(challenges))
        // Each request went out once, or twice when it met the challenge: never more.
        #expect(after.protectedRequests - before.protectedRequests == 32 + challenges)
        #expect(after.tokenRequests == before.tokenRequests)
        #expect(after.dpopProofRejections == 0)
        #expect(await session.isSessionExpired == false)
    }

    @Test("a POST that meets use_dpop_nonce is sent again once, and a POST that succeeds is sent once")
    func postRetriedOnce() async throws {
        let fixture = try await Fixture(nonces: true)
        let session = fixture.session()
        try await fixture.signIn(session)
        let provider = fixture.provider(session)
        #expect(try await provider.request(fixture.list).statusCode == 200)

        var before = try await fixture.server.counters()
        let created = try await provider.request(fixture.create("first"))
        #expect((200..<300).contains(created.statusCode))
        var after = try await fixture.server.counters()
        #expect(after.protectedRequests - before.protectedRequests == 1)

        var changes = TestServerConfig()
        changes.dpop = .init(rotate: ["rs"])
        try await fixture.server.configure(changes)
        before = try await fixture.server.counters()
        let retried = try await provider.request(fixture.create("second"))
        #expect((200..<300).contains(retried.statusCode))
        after = try await fixture.server.counters()
        #expect(after.protectedRequests - before.protectedRequests == 2)
        #expect(after.dpopNonceChallenges - before.dpopNonceChallenges == 1)
        #expect(after.tokenRequests == before.tokenRequests)
    }

    @Test("sessions on one token file sign with the one key, and refresh once between them")
    func sharedKey() async throws {
        for _ in 0..<3 {
            let fixture = try await Fixture(nonces: false)
            let app = fixture.session()
            let widget = fixture.session()
            try await fixture.signIn(app)
            #expect(try await fixture.provider(widget).request(fixture.list).statusCode == 200)
            #expect(try await fixture.server.expireAccessTokens() >= 1)

            let appProvider = fixture.provider(app)
            let widgetProvider = fixture.provider(widget)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<16 {
                    let provider = index.isMultiple(of: 2) ? appProvider : widgetProvider
                    group.addTask { try await provider.request(fixture.list).statusCode }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 16))
            let counters = try await fixture.server.counters()
            #expect(counters.refreshSuccesses == 1)
            #expect(counters.refreshTokenReuses == 0)
            #expect(counters.dpopProofRejections == 0)
            #expect(await app.token?.dpopKey == widget.token?.dpopKey)
        }
    }

    @Test("a stored token whose key is lost ends the session with that reason; a new sign-in gets a new key")
    func lostKey() async throws {
        let fixture = try await Fixture(nonces: false)
        let first = fixture.session()
        let original = try await fixture.signIn(first)
        let store = FileTokenStore(url: fixture.tokenFile)
        var stripped = try #require(try store.load())
        stripped.dpopKey = nil
        try store.save(stripped)

        let session = fixture.session()
        let events = session.events
        let provider = fixture.provider(session)
        await #expect {
            _ = try await provider.request(fixture.list)
        } throws: { error in
            guard case .authentication(.sessionExpired) = error as? CourierError else { return false }
            return true
        }
        #expect(session.sessionExpiry?.cause == .dpopKeyLost)
        #expect(session.sessionExpiry?.description.contains("DPoP key") == true)
        #expect(await events.first { _ in true } == .sessionExpired)
        #expect(try store.load() == nil)
        #expect(try await fixture.server.counters().protectedRequests == 0)

        let renewed = try await fixture.signIn(session)
        #expect(renewed.dpopKey != nil)
        #expect(renewed.dpopKey != original.dpopKey)
        #expect(try await provider.request(fixture.list).statusCode == 200)
    }

    @Test("a DPoP-bound token without its key is refused at sign-in, not at the first request")
    func signInRefusesAnUnboundToken() async throws {
        let fixture = try await Fixture(nonces: false)
        let session = fixture.session()
        let token = OAuthToken(accessToken: "a", refreshToken: "r", tokenType: "DPoP")
        await #expect(throws: DPoPError.self) { try await session.signIn(token) }
        #expect(try FileTokenStore(url: fixture.tokenFile).load() == nil)
    }
}

#endif
