import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The 16 KiB bound on token fields holds for what a store returns, whichever store it is: a
/// token file, a database row, an app's own store or coordinator. A session that loads one
/// too long to send reports it (``AuthenticationError/storeUnavailable(_:)`` with the
/// ``TokenValidationError`` naming the field, never its value) and sends nothing.
@Suite("AuthSession refuses a stored token that cannot be sent", .timeLimit(.minutes(20)))
struct StoredTokenBoundsTests {
    /// 20 MB: what a database row held in the field report.
    static let huge = String(repeating: "x", count: 20 << 20)

    static func token(_ access: String, refresh: String? = "R1") -> OAuthToken {
        OAuthToken(
            accessToken: access, refreshToken: refresh, expiresAt: Date().addingTimeInterval(3600), issuedAt: Date())
    }

    /// A store of the app's own (its own `TokenStore`, no coordinator of its own).
    struct AppStore: TokenStore {
        let token: OAuthToken
        func load() throws -> OAuthToken? { token }
        func save(_ token: OAuthToken?) throws {}
    }

    enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
        case file, appStore, appCoordinator
        var testDescription: String { rawValue }
    }

    /// A store of `kind` holding `token`, and a clean-up.
    static func store(_ kind: StoreKind, holding token: OAuthToken) throws -> (any TokenStore, () -> Void) {
        switch kind {
        case .file:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bounds-\(UUID().uuidString)")
            let file = folder.appendingPathComponent("token.json")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // As another program (or an older Courier) would have written it.
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            try encoder.encode(token).write(to: file)
            return (FileTokenStore(url: file), { try? FileManager.default.removeItem(at: folder) })
        case .appStore:
            return (AppStore(token: token), {})
        case .appCoordinator:
            let coordinator = AsyncCoordinatorTests.DatabaseCoordinator(token)
            return (AsyncCoordinatorTests.DatabaseStore(shared: coordinator), {})
        }
    }

    static func isTooLong(_ error: any Error, _ field: TokenValidationError.Field) -> Bool {
        guard case .authentication(.storeUnavailable(let underlying)) = error as? CourierError else { return false }
        return underlying as? TokenValidationError
            == TokenValidationError(
                field: field, problem: .tooLong(length: huge.utf8.count, limit: OAuthToken.maximumTokenLength))
    }

    @Test(
        "a 20 MB token loaded from any store: storeUnavailable naming the field, nothing sent, no refresh",
        arguments: StoreKind.allCases, [TokenValidationError.Field.accessToken, .refreshToken])
    func hugeStoredToken(kind: StoreKind, field: TokenValidationError.Field) async throws {
        let stored = field == .accessToken ? Self.token(Self.huge) : Self.token("at-ok", refresh: Self.huge)
        let (store, cleanUp) = try Self.store(kind, holding: stored)
        defer { cleanUp() }
        let refreshes = CallCounter()
        let session = AuthSession(
            store: store,
            refresh: { token in
                refreshes.increment()
                return token
            }, refreshTimeout: testRefreshTimeout)
        let transport = ScriptedTransport()
        transport.always(.json(#"{"ok":true}"#), for: .get("/me"))
        let provider = RefreshableProvider<SignedTarget>(auth: session, transport: transport)

        await #expect {
            try await provider.request(SignedTarget())
        } throws: { error in
            Self.isTooLong(error, field) && !"\(error)".contains("xxxxxxxxxxxxxxxx")
                && "\(error)".contains(field.rawValue)
        }
        #expect(transport.requestCount == 0, "nothing was sent")
        #expect(refreshes.value == 0)
        #expect(await !session.isSessionExpired)
        #expect(await session.token == nil)
        #expect(await session.tokenLoadError is TokenValidationError)
        #expect(await session.needsSignIn, "the stored token can never be sent: a sign-in replaces it")

        // A sign-in replaces it, and requests work again.
        try await session.signIn(Self.token("at-fresh"))
        #expect(try await provider.request(SignedTarget()).statusCode == 200)
        #expect(transport.lastRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer at-fresh")
    }

    @Test("a 20 MB token another session wrote over a good one is not adopted: the good one goes on being sent")
    func hugeTokenWrittenLater() async throws {
        let coordinator = AsyncCoordinatorTests.DatabaseCoordinator(Self.token("at-good"))
        let session = AuthSession(
            store: AsyncCoordinatorTests.DatabaseStore(shared: coordinator), refresh: { $0 },
            refreshTimeout: testRefreshTimeout)
        let transport = ScriptedTransport()
        transport.always(.json(#"{"ok":true}"#), for: .get("/me"))
        let provider = RefreshableProvider<SignedTarget>(auth: session, transport: transport)
        #expect(try await provider.request(SignedTarget()).statusCode == 200)

        _ = try await coordinator.write(Self.token(Self.huge), change: .refreshed, ifGeneration: nil)
        #expect(try await provider.request(SignedTarget()).statusCode == 200)
        let sent = transport.requests.compactMap { $0.value(forHTTPHeaderField: "Authorization") }
        #expect(sent == ["Bearer at-good", "Bearer at-good"])
        #expect(await session.token?.accessToken == "at-good")
    }

    @Test("a refresh that finds a 20 MB token in the store under the lease fails with the field named, sends nothing")
    func hugeTokenFoundByRefresh() async throws {
        let expired = OAuthToken(
            accessToken: "at-old", refreshToken: "R1", expiresAt: Date().addingTimeInterval(-10), issuedAt: nil)
        let coordinator = AsyncCoordinatorTests.DatabaseCoordinator(expired)
        let refreshes = CallCounter()
        let session = AuthSession(
            store: AsyncCoordinatorTests.DatabaseStore(shared: coordinator),
            refresh: { token in
                refreshes.increment()
                return token
            }, refreshTimeout: testRefreshTimeout)
        #expect(await session.token?.accessToken == "at-old")
        // Another writer puts a 20 MB token in the row without this session checking in
        // between (generation moved): the refresh reads it under the lease.
        _ = try await coordinator.write(Self.token(Self.huge), change: .refreshed, ifGeneration: nil)
        let transport = ScriptedTransport()
        transport.always(.json(#"{"ok":true}"#), for: .get("/me"))
        let provider = RefreshableProvider<SignedTarget>(auth: session, transport: transport)
        await #expect(throws: CourierError.self) { try await provider.request(SignedTarget()) }
        #expect(transport.requestCount == 0)
        #expect(refreshes.value == 0)
        #expect(await !session.isSessionExpired)
    }
}
