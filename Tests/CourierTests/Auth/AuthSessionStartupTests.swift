import Courier
import Foundation
import Testing

/// What an app can tell at start-up, before any request: whether to show its login screen,
/// and why.
@Suite("AuthSession at start-up")
struct AuthSessionStartupTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-startup-\(UUID().uuidString)")
    var file: URL { folder.appendingPathComponent("token.json") }
    let token = OAuthToken(accessToken: "at-SECRET", refreshToken: "rt-SECRET", expiresAt: Date() + 3600)

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    @Test("a corrupt token file: needs sign-in at once, with the load error; signing in replaces the file")
    func corruptFile() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("{\"access_token\": tru".utf8).write(to: file)
        let session = AuthSession(store: FileTokenStore(url: file), refresh: { $0 }, refreshTimeout: testRefreshTimeout)

        #expect(await session.tokenLoadError != nil)
        #expect(await session.needsSignIn)
        #expect(await session.signInState == .needsSignIn)
        #expect(await session.token == nil)
        #expect(await !session.isSessionExpired)
        #expect(try Data(contentsOf: file) == Data("{\"access_token\": tru".utf8), "nothing on disk changed by itself")

        try await session.signIn(token)
        #expect(await !session.needsSignIn)
        #expect(try FileTokenStore(url: file).load()?.accessToken == token.accessToken)
    }

    @Test(
        "an unreadable token file (a folder in its place) is reported with the load error; whether to sign in is unknown"
    )
    func unreadableFile() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        let session = AuthSession(store: FileTokenStore(url: file), refresh: { $0 }, refreshTimeout: testRefreshTimeout)

        let error = try #require(await session.tokenLoadError)
        // The file could not be read (as a protected file before the first unlock): that says
        // nothing about the user. A corrupt file, which was read, does (see above).
        #expect(await !session.needsSignIn)
        #expect(await session.signInState == .unknown(error))
        await #expect {
            try await session.validToken()
        } throws: { thrown in
            guard case .storeUnavailable(let underlying) = thrown as? AuthenticationError else { return false }
            return "\(underlying)" == "\(error)"
        }
    }

    @Test("no stored token: sign-in needed, no load error; with an acquire closure, no sign-in needed")
    func firstLaunch() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = AuthSession(store: FileTokenStore(url: file), refresh: { $0 }, refreshTimeout: testRefreshTimeout)
        #expect(await plain.tokenLoadError == nil)
        #expect(await plain.needsSignIn)

        let anonymous = AuthSession(
            store: FileTokenStore(url: file), refresh: { $0 }, acquire: { OAuthToken(accessToken: "guest") },
            refreshTimeout: testRefreshTimeout)
        #expect(await !anonymous.needsSignIn)
    }

    @Test("a stored token, even an expired one that can be refreshed, needs no sign-in")
    func storedToken() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var expired = token
        expired.expiresAt = Date() - 60
        try FileTokenStore(url: file).save(expired)
        let session = AuthSession(
            store: FileTokenStore(url: file),
            refresh: { old in OAuthToken(accessToken: "fresh", refreshToken: old.refreshToken, expiresAt: Date() + 60)
            }, refreshTimeout: testRefreshTimeout
        )

        #expect(await session.tokenLoadError == nil)
        #expect(await !session.needsSignIn)
        #expect(try await session.validToken().accessToken == "fresh")
    }

    @Test("a revoked refresh token: the first refresh ends the session, then a sign-in is needed")
    func revokedToken() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileTokenStore(url: file).save(token)
        let session = AuthSession(
            store: FileTokenStore(url: file), refresh: { _ in throw AuthenticationError.sessionExpired },
            refreshTimeout: testRefreshTimeout)
        #expect(await !session.needsSignIn, "nothing says it is revoked until the server does")

        await #expect(throws: AuthenticationError.self) { try await session.refresh(rejecting: token) }

        #expect(await session.needsSignIn)
        #expect(await session.isSessionExpired)
        #expect(try FileTokenStore(url: file).load() == nil, "the rejected token was cleared")
    }

    @Test("signing out means a sign-in is needed again")
    func signOut() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = AuthSession(refresh: { $0 }, refreshTimeout: testRefreshTimeout)
        try await session.signIn(token)
        #expect(await !session.needsSignIn)
        try await session.signOut()
        #expect(await session.needsSignIn)
    }
}
