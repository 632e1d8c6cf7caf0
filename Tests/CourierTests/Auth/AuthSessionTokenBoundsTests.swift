import Courier
import CourierTesting
import Foundation
import Testing

/// A token that can never be sent never reaches the store, wherever it comes from: a refresh,
/// an acquire, a sign-in. The good refresh token stays, and the next refresh uses it.
@Suite("AuthSession refuses tokens that cannot be sent", .timeLimit(.minutes(20)))
struct AuthSessionTokenBoundsTests {
    static let huge = String(repeating: "x", count: 1 << 20)

    static func token(_ access: String, refresh: String? = "R1", lifetime: TimeInterval = 3600) -> OAuthToken {
        OAuthToken(
            accessToken: access, refreshToken: refresh, expiresAt: Date().addingTimeInterval(lifetime),
            issuedAt: Date())
    }

    /// The refresh closure's answers, in order, and the refresh tokens it was called with.
    final class ScriptedRefresh: Sendable {
        private let answers: LockIsolated<[Result<OAuthToken, any Error>]>
        let presented = LockIsolated<[String?]>([])

        init(_ answers: [Result<OAuthToken, any Error>]) {
            self.answers = LockIsolated(answers)
        }

        func callAsFunction(_ token: OAuthToken) throws -> OAuthToken {
            presented.withValue { $0.append(token.refreshToken) }
            return try answers.withValue { $0.removeFirst() }.get()
        }
    }

    static func tooLong(_ field: TokenValidationError.Field) -> TokenValidationError {
        TokenValidationError(field: field, problem: .tooLong(length: 1 << 20, limit: OAuthToken.maximumTokenLength))
    }

    @Test(
        "a refresh answer too large to send fails with refreshFailed naming the field; the old refresh token stays and works",
        arguments: [TokenValidationError.Field.accessToken, .refreshToken])
    func refreshTooLarge(field: TokenValidationError.Field) async throws {
        let stale = Self.token("old", lifetime: -1)
        let store = InMemoryTokenStore(stale)
        let refresh = ScriptedRefresh([
            .success(
                field == .accessToken
                    ? Self.token(Self.huge, refresh: "R2-rotated") : Self.token("new-1", refresh: Self.huge)),
            .success(Self.token("new-2", refresh: "R3")),
        ])
        let session = AuthSession(store: store, refresh: { try refresh($0) }, refreshTimeout: testRefreshTimeout)

        await #expect {
            try await session.validToken()
        } throws: { error in
            guard case .refreshFailed(let underlying) = error as? AuthenticationError else { return false }
            return underlying as? TokenValidationError == Self.tooLong(field)
        }
        #expect(store.load() == stale, "nothing of the refused answer was stored")
        #expect(await session.token == stale)
        #expect(await !session.isSessionExpired)

        let next = try await session.validToken()
        #expect(next.accessToken == "new-2")
        #expect(refresh.presented.value == ["R1", "R1"], "the next refresh sent the good refresh token again")
        #expect(store.load()?.refreshToken == "R3")
    }

    @Test("a refresh closure using OAuthToken(response:) on a 1 MB answer: refreshFailed says which field and its size")
    func refreshResponseTooLarge() async throws {
        let stale = Self.token("old", lifetime: -1)
        let store = InMemoryTokenStore(stale)
        let body = #"{"access_token":"SECRET-\#(Self.huge)","token_type":"Bearer","refresh_token":"R2-rotated"}"#
        let session = AuthSession(
            store: store,
            refresh: { _ in try OAuthToken(response: Response(statusCode: 200, data: Data(body.utf8))) },
            refreshTimeout: testRefreshTimeout)

        await #expect {
            try await session.refresh(rejecting: stale)
        } throws: { error in
            guard case .refreshFailed(let underlying) = error as? AuthenticationError,
                case .objectMapping(let problem as TokenValidationError, _) = underlying as? CourierError
            else { return false }
            let description = "\(error)"
            return problem.field == .accessToken && description.contains("access_token is 1048583 bytes long")
                && description.contains("the access token failed: ") && !description.contains("SECRET")
        }
        #expect(store.load() == stale)
    }

    @Test("an acquire closure's unusable token is refused and nothing is stored; the next acquire works")
    func acquireTooLarge() async throws {
        let store = InMemoryTokenStore()
        let answers = ScriptedRefresh([.success(Self.token("bad\r\nX-Injected: 1")), .success(Self.token("guest"))])
        let session = AuthSession(
            store: store, refresh: { _ in throw AuthenticationError.sessionExpired },
            acquire: { try answers(OAuthToken(accessToken: "unused")) }, refreshTimeout: testRefreshTimeout)

        await #expect {
            try await session.validToken()
        } throws: { error in
            guard case .refreshFailed(let underlying) = error as? AuthenticationError else { return false }
            return underlying as? TokenValidationError
                == TokenValidationError(field: .accessToken, problem: .controlCharacter("\r"))
        }
        #expect(store.load() == nil)
        #expect(try await session.validToken().accessToken == "guest")
    }

    @Test("signIn with a token that cannot be sent throws and changes nothing")
    func signIn() async throws {
        let current = Self.token("current")
        let store = InMemoryTokenStore(current)
        let session = AuthSession(
            store: store, refresh: { _ in Self.token("unused") }, refreshTimeout: testRefreshTimeout)
        let refused: [(OAuthToken, TokenValidationError)] = [
            (Self.token(Self.huge), Self.tooLong(.accessToken)),
            (Self.token("a", refresh: Self.huge), Self.tooLong(.refreshToken)),
            (Self.token("a\nb"), TokenValidationError(field: .accessToken, problem: .controlCharacter("\n"))),
            (Self.token(""), TokenValidationError(field: .accessToken, problem: .empty)),
            (
                OAuthToken(accessToken: "a", tokenType: "Bearer\r\nX: 1"),
                TokenValidationError(field: .tokenType, problem: .notAToken("\r"))
            ),
        ]
        for (token, expected) in refused {
            await #expect(throws: expected) { try await session.signIn(token) }
            #expect(store.load() == current)
            #expect(await session.token == current)
        }
        try await session.signIn(Self.token("fine"))
        #expect(store.load()?.accessToken == "fine")
    }
}
