import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A process whose session was made without `dpop:` shares a token file with one that signed
/// in with DPoP: it must not send the bound token without a proof (every RFC 9449 server
/// refuses it, and the field report counted 10,472 such requests), nor refresh it, nor end the
/// session — it says, once, that it needs the key factory.
@Suite("A bearer session holding a DPoP-bound token", .timeLimit(.minutes(20)))
struct DPoPWithoutKeyFactoryTests {
    typealias API = DPoPSessionSigningTests.API

    /// A DPoP session and a bearer session on one token file, as two processes would have.
    struct SharedFile {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dpop-nofactory-\(UUID().uuidString)")
        var file: URL { folder.appendingPathComponent("token.json") }
        let refreshes = CallCounter()

        init() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        func dpopSession() -> AuthSession {
            AuthSession(store: FileTokenStore(url: file), refresh: { $0 }, dpop: FakeKeyFactory())
        }

        func bearerSession(now: @escaping @Sendable () -> Date = { Date() }) -> AuthSession {
            let refreshes = self.refreshes
            return AuthSession(
                store: FileTokenStore(url: file),
                refresh: { token in
                    refreshes.increment()
                    return token
                }, now: now, refreshTimeout: testRefreshTimeout)
        }

        func cleanUp() { try? FileManager.default.removeItem(at: folder) }
    }

    static func isKeyFactoryMissing(_ error: any Error) -> Bool {
        guard case .underlying(let underlying, _) = error as? CourierError,
            (underlying as? DPoPError)?.isKeyFactoryMissing == true
        else { return false }
        return "\(underlying)".contains("no key factory")
    }

    @Test("the first request fails with DPoPError.keyFactoryMissing; nothing sent, no refresh, no logout")
    func firstUse() async throws {
        let shared = try SharedFile()
        defer { shared.cleanUp() }
        let bound = try await shared.dpopSession().signIn {
            OAuthToken(
                accessToken: "at-bound", refreshToken: "rt-bound", tokenType: "DPoP",
                expiresAt: Date().addingTimeInterval(3600), issuedAt: Date())
        }
        #expect(bound.dpopKey != nil)

        let bearer = shared.bearerSession()
        let events = bearer.events
        let transport = ScriptedTransport()
        transport.always(.status(200), for: .get("/items"))
        let provider = RefreshableProvider<API>(auth: bearer, transport: transport)
        for _ in 0..<5 {
            await #expect {
                try await provider.request(API())
            } throws: { error in
                Self.isKeyFactoryMissing(error) && !"\(error)".contains("at-bound")
            }
        }
        #expect(transport.requestCount == 0, "nothing was sent")
        #expect(shared.refreshes.value == 0)
        #expect(await !bearer.isSessionExpired)
        #expect(
            try FileTokenStore(url: shared.file).load()?.accessToken == "at-bound", "the other process's token stays")
        // No event either: nothing happened to the session.
        try await bearer.signOut()
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .signedOut)
    }

    @Test("an expired bound token is not refreshed without the key: refreshFailed(keyFactoryMissing), nothing sent")
    func noRefreshWithoutKey() async throws {
        let shared = try SharedFile()
        defer { shared.cleanUp() }
        _ = try await shared.dpopSession().signIn {
            OAuthToken(
                accessToken: "at-bound", refreshToken: "rt-bound", tokenType: "DPoP",
                expiresAt: Date().addingTimeInterval(60), issuedAt: Date())
        }
        // This process's clock is past the token's expiry: a request must refresh first.
        let bearer = shared.bearerSession(now: { Date().addingTimeInterval(3600) })
        let transport = ScriptedTransport()
        transport.always(.status(200), for: .get("/items"))
        let provider = RefreshableProvider<API>(auth: bearer, transport: transport)
        for _ in 0..<3 {
            await #expect {
                try await provider.request(API())
            } throws: { error in
                guard case .authentication(.refreshFailed(let underlying)) = error as? CourierError,
                    (underlying as? DPoPError)?.isKeyFactoryMissing == true
                else { return false }
                return true
            }
        }
        #expect(shared.refreshes.value == 0, "the refresh token never left without its proof")
        #expect(transport.requestCount == 0)
        #expect(await !bearer.isSessionExpired)
        #expect(try FileTokenStore(url: shared.file).load()?.refreshToken == "rt-bound")
    }

    @Test("signIn(_:) with a DPoP-bound token on a bearer session is refused; nothing stored")
    func signInRefused() async throws {
        let store = InMemoryTokenStore()
        let session = AuthSession(store: store, refresh: { $0 })
        await #expect {
            try await session.signIn(DPoPSessionSigningTests.boundToken)
        } throws: { error in
            (error as? DPoPError)?.isKeyFactoryMissing == true
        }
        #expect(store.load() == nil)
    }
}
