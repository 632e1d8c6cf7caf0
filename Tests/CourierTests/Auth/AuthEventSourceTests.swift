import Courier
import CourierTesting
import Foundation
import Testing

/// `eventOccurrences` tells this session's refreshes (and sign-ins, sign-outs, rejections)
/// from those it adopted from another session sharing its store; `events` is unchanged.
@Suite("AuthEvent sources", .timeLimit(.minutes(20)))
struct AuthEventSourceTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-source-\(UUID().uuidString)")
    var file: URL { folder.appendingPathComponent("token.json") }

    static func token(_ name: String, lifetime: TimeInterval = 3600) -> OAuthToken {
        OAuthToken(
            accessToken: name, refreshToken: "rt-\(name)", expiresAt: Date().addingTimeInterval(lifetime),
            issuedAt: Date())
    }

    static func session(_ store: any TokenStore, calls: CallCounter) -> AuthSession {
        AuthSession(
            store: store, refresh: { _ in token("new-\(calls.increment())") }, refreshTimeout: testRefreshTimeout)
    }

    @Test(
        "a refresh here is .refreshed from thisSession; the same refresh seen by another session is from anotherSession"
    )
    func refreshSources() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = Self.session(FileTokenStore(url: file), calls: CallCounter())
        let reader = Self.session(FileTokenStore(url: file), calls: CallCounter())
        var writerEvents = writer.eventOccurrences.makeAsyncIterator()
        var readerEvents = reader.eventOccurrences.makeAsyncIterator()
        var readerPlainEvents = reader.events.makeAsyncIterator()
        // A session reads the store when it is first used: the reader starts (with no token)
        // before the writer signs in, so it hears of the sign-in.
        #expect(await reader.token == nil)

        try await writer.signIn(Self.token("signed-in"))
        #expect(await writerEvents.next() == AuthEvent.Occurrence(.signedIn, source: .thisSession))
        _ = try await reader.validToken()
        #expect(await readerEvents.next() == AuthEvent.Occurrence(.signedIn, source: .anotherSession))

        let renewed = try await writer.refresh(rejecting: Self.token("signed-in"))
        #expect(await writerEvents.next() == AuthEvent.Occurrence(.refreshed, source: .thisSession))
        #expect(try await reader.validToken().accessToken == renewed.accessToken)
        #expect(await readerEvents.next() == AuthEvent.Occurrence(.refreshed, source: .anotherSession))

        // The plain stream is as it was: the same events, without their source.
        #expect(await readerPlainEvents.next() == .signedIn)
        #expect(await readerPlainEvents.next() == .refreshed)
    }

    @Test("a refresh that finds the token another session stored meanwhile adopts it: .refreshed from anotherSession")
    func adoptedDuringRefresh() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileTokenStore(url: file).save(Self.token("old", lifetime: -1))
        let writerCalls = CallCounter()
        let readerCalls = CallCounter()
        let writer = Self.session(FileTokenStore(url: file), calls: writerCalls)
        let reader = Self.session(FileTokenStore(url: file), calls: readerCalls)
        var readerEvents = reader.eventOccurrences.makeAsyncIterator()
        // The reader is used (it reads "old") before the writer refreshes.
        #expect(await reader.token?.accessToken == "old")

        _ = try await writer.refresh(rejecting: Self.token("old"))
        // The reader still holds "old": its refresh takes the lease, reads the store and adopts.
        _ = try await reader.refresh(rejecting: Self.token("old"))

        #expect(await readerEvents.next() == AuthEvent.Occurrence(.refreshed, source: .anotherSession))
        #expect(writerCalls.value == 1 && readerCalls.value == 0)
    }

    @Test(
        "a rejection here is sessionExpired from thisSession; the session it ends elsewhere hears it from anotherSession"
    )
    func sessionExpiredSources() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileTokenStore(url: file).save(Self.token("old", lifetime: -1))
        let rejecting = AuthSession(
            store: FileTokenStore(url: file),
            refresh: { _ in
                throw CourierError.statusCode(Response(statusCode: 400, data: Data(#"{"error":"invalid_grant"}"#.utf8)))
            }, refreshTimeout: testRefreshTimeout)
        let other = Self.session(FileTokenStore(url: file), calls: CallCounter())
        var rejectingEvents = rejecting.eventOccurrences.makeAsyncIterator()
        var otherEvents = other.eventOccurrences.makeAsyncIterator()

        await #expect(throws: AuthenticationError.sessionExpired) { try await rejecting.validToken() }
        #expect(await other.isSessionExpired)

        #expect(await rejectingEvents.next() == AuthEvent.Occurrence(.sessionExpired, source: .thisSession))
        #expect(await otherEvents.next() == AuthEvent.Occurrence(.sessionExpired, source: .anotherSession))
    }
}
