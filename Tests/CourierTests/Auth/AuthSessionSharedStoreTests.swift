import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sessions that share a store behave as one session: in this process they are two
/// `AuthSession`s on two `FileTokenStore` instances of one file (which coordinate exactly as
/// two processes do), or on one `InMemoryTokenStore`. The multi-process runs are in the
/// integration tests.
@Suite("AuthSession sharing a store", .timeLimit(.minutes(20)))
struct AuthSessionSharedStoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-shared-\(UUID().uuidString)")
    var file: URL { folder.appendingPathComponent("token.json") }

    static func token(_ name: String, refresh: String? = nil, lifetime: TimeInterval = 3600) -> OAuthToken {
        OAuthToken(
            accessToken: name, refreshToken: refresh ?? "rt-\(name)", expiresAt: Date().addingTimeInterval(lifetime),
            issuedAt: Date())
    }

    /// A session on `store` whose refresh counts its calls in `calls` and answers `new-<n>`.
    static func session(_ store: any TokenStore, calls: CallCounter) -> AuthSession {
        AuthSession(
            store: store,
            refresh: { _ in
                let call = calls.increment()
                await Task.yield()
                return token("new-\(call)")
            }, refreshTimeout: testRefreshTimeout)
    }

    @Test(
        "two sessions on two instances of one file, 50 concurrent expired-token requests each: one refresh — 20 rounds")
    func oneRefreshAcrossInstances() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        for round in 0..<20 {
            let roundFile = folder.appendingPathComponent("round-\(round).json")
            try FileTokenStore(url: roundFile).save(Self.token("old", lifetime: -1))
            let calls = CallCounter()
            let first = Self.session(FileTokenStore(url: roundFile), calls: calls)
            let second = Self.session(FileTokenStore(url: roundFile), calls: calls)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<100 {
                    let session = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        index % 4 < 2
                            ? try await session.validToken().accessToken
                            : try await session.refresh(rejecting: Self.token("old")).accessToken
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(calls.value == 1, "round \(round): \(calls.value) refreshes")
            #expect(tokens == ["new-1"])
            #expect(try FileTokenStore(url: roundFile).load()?.accessToken == "new-1")
        }
    }

    @Test("two sessions on one InMemoryTokenStore: one refresh — 20 rounds")
    func oneRefreshInMemory() async throws {
        for _ in 0..<20 {
            let store = InMemoryTokenStore(Self.token("old", lifetime: -1))
            let calls = CallCounter()
            let sessions = [Self.session(store, calls: calls), Self.session(store, calls: calls)]
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<100 {
                    let session = sessions[index % 2]
                    group.addTask { try await session.validToken().accessToken }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(calls.value == 1)
            #expect(tokens == ["new-1"])
        }
    }

    @Test("a session uses the token another session stored before its next request, without a refresh or a 401")
    func hearsAboutNewerToken() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let writerCalls = CallCounter()
        let readerCalls = CallCounter()
        let writer = Self.session(FileTokenStore(url: file), calls: writerCalls)
        let reader = Self.session(FileTokenStore(url: file), calls: readerCalls)
        let events = reader.events
        var iterator = events.makeAsyncIterator()
        #expect(await reader.needsSignIn)

        try await writer.signIn(Self.token("signed-in"))
        #expect(try await reader.validToken(minimumValidity: 60).accessToken == "signed-in")
        #expect(await iterator.next() == .signedIn)

        let renewed = try await writer.refresh(rejecting: Self.token("signed-in"))
        #expect(try await reader.validToken(minimumValidity: 60).accessToken == renewed.accessToken)
        #expect(await iterator.next() == .refreshed)
        #expect(writerCalls.value == 1)
        #expect(readerCalls.value == 0, "the reader never refreshed")
    }

    @Test("signOut() in one session signs the others out: no token, needsSignIn, signedOut")
    func signOutEverywhere() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let calls = CallCounter()
        let first = Self.session(FileTokenStore(url: file), calls: calls)
        try await first.signIn(Self.token("A"))
        let second = Self.session(FileTokenStore(url: file), calls: calls)
        #expect(try await second.validToken().accessToken == "A")
        var iterator = second.events.makeAsyncIterator()

        try await first.signOut()
        #expect(await second.needsSignIn)
        #expect(await iterator.next() == .signedOut)
        await #expect {
            try await second.validToken()
        } throws: { error in
            if case .missingCredential = error as? AuthenticationError { return true }
            return false
        }
        #expect(calls.value == 0)
    }

    @Test(
        "a rejection while another session stored a newer token: that token is adopted, the session goes on, nothing is deleted"
    )
    func rejectionAfterRotationElsewhere() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileTokenStore(url: file).save(Self.token("old", lifetime: -1))
        let elsewhere = FileTokenStore(url: file)
        let session = AuthSession(
            store: FileTokenStore(url: file),
            refresh: { _ in
                // Another process rotated the token while this refresh was at the server, which
                // then rejected the used refresh token.
                try elsewhere.save(Self.token("rotated-elsewhere"))
                throw CourierError.statusCode(Response(statusCode: 400, data: Data(#"{"error":"invalid_grant"}"#.utf8)))
            }, refreshTimeout: testRefreshTimeout)
        #expect(try await session.validToken().accessToken == "rotated-elsewhere")
        #expect(await !session.isSessionExpired)
        #expect(session.sessionExpiry == nil)
        #expect(try FileTokenStore(url: file).load()?.accessToken == "rotated-elsewhere")
    }

    @Test("a rejection clears the store it still holds, and the other sessions end with it")
    func rejectionEndsEverySession() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileTokenStore(url: file).save(Self.token("old", lifetime: -1))
        let rejecting = AuthSession(
            store: FileTokenStore(url: file),
            refresh: { _ in
                throw CourierError.statusCode(Response(statusCode: 400, data: Data(#"{"error":"invalid_grant"}"#.utf8)))
            }, refreshTimeout: testRefreshTimeout)
        let other = Self.session(FileTokenStore(url: file), calls: CallCounter())
        var iterator = other.events.makeAsyncIterator()
        await #expect {
            try await rejecting.validToken()
        } throws: { error in
            if case .sessionExpired = error as? AuthenticationError { return true }
            return false
        }
        #expect(try FileTokenStore(url: file).load() == nil)
        #expect(await other.isSessionExpired)
        #expect(await iterator.next() == .sessionExpired)
        #expect(other.sessionExpiry?.cause == .anotherSession)
        #expect(rejecting.sessionExpiry?.cause == .rejectedByTokenEndpoint)
    }
}

/// What ends a session and what does not, and the reason it keeps.
@Suite("AuthSession: why a session ended", .timeLimit(.minutes(20)))
struct AuthSessionExpiryTests {
    static let tokenURL = URL(string: "https://auth.example.com/oauth/token?client_secret=s3cr3t-value")!

    static func tokenResponse(
        _ status: Int, _ body: String, answeredBy url: URL = tokenURL, contentType: String = "application/json"
    ) -> CourierError {
        var request = URLRequest(url: tokenURL)
        request.httpMethod = "POST"
        let http = HTTPURLResponse(
            url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": contentType])
        return .statusCode(Response(statusCode: status, data: Data(body.utf8), request: request, response: http))
    }

    static func session(throwing error: any Error, store: InMemoryTokenStore) -> AuthSession {
        AuthSession(store: store, refresh: { _ in throw error }, refreshTimeout: testRefreshTimeout)
    }

    static func expired() -> InMemoryTokenStore {
        InMemoryTokenStore(AuthSessionSharedStoreTests.token("at-old", refresh: "rt-KEEP", lifetime: -1))
    }

    @Test(
        "401 invalid_client from the token endpoint: the session ends, and sessionExpiry says which request, status and OAuth error — never a secret"
    )
    func reasonKept() async throws {
        let store = Self.expired()
        let session = Self.session(
            throwing: Self.tokenResponse(
                401,
                #"{"error":"invalid_client","error_description":"Client authentication failed (Bearer at-LEAKED-0123456789)"}"#
            ), store: store)
        var iterator = session.events.makeAsyncIterator()
        await #expect {
            try await session.validToken()
        } throws: { error in
            // Matched as it always was: the case has no payload.
            if case .sessionExpired = error as? AuthenticationError { return true }
            return false
        }
        #expect(await iterator.next() == .sessionExpired)
        let expiry = try #require(session.sessionExpiry)
        #expect(expiry.cause == .rejectedByTokenEndpoint)
        #expect(expiry.statusCode == 401)
        #expect(expiry.oauthError == "invalid_client")
        #expect(expiry.request?.hasPrefix("POST https://auth.example.com/oauth/token") == true)
        #expect(expiry.oauthErrorDescription?.hasPrefix("Client authentication failed") == true)
        for text in [expiry.description, String(describing: expiry), "\(String(reflecting: expiry))"] {
            #expect(!text.contains("s3cr3t-value"), "\(text)")
            #expect(!text.contains("at-LEAKED"), "\(text)")
        }
        #expect(expiry.description.contains("invalid_client"))
        #expect(store.load() == nil)
    }

    @Test("a refresh closure that throws AuthenticationError.sessionExpired still ends the session, as it always did")
    func thrownSessionExpired() async throws {
        for error in [AuthenticationError.sessionExpired, CourierError.authentication(.sessionExpired)] as [any Error] {
            let store = Self.expired()
            let session = Self.session(throwing: error, store: store)
            await #expect(throws: AuthenticationError.self) { try await session.validToken() }
            #expect(await session.isSessionExpired)
            #expect(session.sessionExpiry?.cause == .refreshClosure)
            #expect(store.load() == nil)
        }
    }

    @Test(
        "a rejection from another origin (a redirected token POST), or an HTML error page, is refreshFailed and keeps the refresh token",
        arguments: [
            tokenResponse(
                401, #"{"error":"invalid_client"}"#, answeredBy: URL(string: "https://sso.example.net/login")!),
            tokenResponse(
                400, "<html><body>Bad request</body></html>", answeredBy: URL(string: "http://portal.example.net/")!,
                contentType: "text/html"),
            tokenResponse(400, "<!DOCTYPE html><html>gateway</html>", contentType: "text/html; charset=utf-8"),
            tokenResponse(400, "  <html>no content type</html>", contentType: "application/octet-stream"),
        ])
    func notALogout(_ error: CourierError) async throws {
        let store = Self.expired()
        let session = Self.session(throwing: error, store: store)
        await #expect {
            try await session.validToken()
        } throws: { thrown in
            if case .refreshFailed = thrown as? AuthenticationError { return true }
            return false
        }
        #expect(await !session.isSessionExpired)
        #expect(session.sessionExpiry == nil)
        #expect(store.load()?.refreshToken == "rt-KEEP")
    }

    @Test("the token endpoint's own 400 without an OAuth code, or with invalid_grant, still ends the session")
    func ownOriginRejects() async throws {
        for body in ["", #"{"error":"invalid_grant","error_description":"Token is revoked"}"#, "{}", "revoked"] {
            let store = Self.expired()
            let session = Self.session(throwing: Self.tokenResponse(400, body, contentType: "text/plain"), store: store)
            await #expect(throws: AuthenticationError.self) { try await session.validToken() }
            #expect(await session.isSessionExpired, "body \(body)")
            #expect(session.sessionExpiry?.statusCode == 400)
        }
    }

    @Test(
        "a refresh closure that never returns is cancelled after abandonRefreshAfter, and the next request refreshes again"
    )
    func abandonedRefresh() async throws {
        let calls = CallCounter()
        let cancelled = AsyncStream.makeStream(of: Void.self)
        let session = AuthSession(
            store: Self.expired(),
            refresh: { _ in
                if calls.increment() == 1 {
                    // Never returns by itself; it only notices that it was cancelled, and then
                    // fails as a cancelled call does (a token it returned then could win the
                    // race with the session's giving up on a loaded machine, and be adopted).
                    await withTaskCancellationHandler {
                        for await _ in AsyncStream<Void>.makeStream().stream {}
                    } onCancel: {
                        cancelled.continuation.yield()
                    }
                    throw CancellationError()
                }
                return AuthSessionSharedStoreTests.token("after-abandon")
            },
            refreshTimeout: 0.05, abandonRefreshAfter: 0.2)
        #expect(session.abandonRefreshAfter == 0.2)
        var events = session.events.makeAsyncIterator()
        // The waiter gives up after refreshTimeout; the refresh goes on, holding the slot.
        await #expect {
            try await session.validToken()
        } throws: { error in
            guard case .refreshFailed(let underlying) = error as? AuthenticationError else { return false }
            return underlying is RefreshTimeout
        }
        #expect(await events.next() == .refreshFailed)
        // Then the session gives up on it: it is cancelled, and the slot is free.
        var cancellations = cancelled.stream.makeAsyncIterator()
        await cancellations.next()
        // The abandoned refresh ends in refreshFailed, and the next request refreshes again.
        // On a machine so busy that the operation's lease (abandonRefreshAfter + 30 s) ran out
        // while it waited for a core, the operation itself takes the lease again at once and
        // refreshes (what the next request would have done): then the refresh comes first.
        let afterAbandon = await events.next()
        #expect(afterAbandon == .refreshFailed || afterAbandon == .refreshed)
        if afterAbandon == .refreshFailed {
            // On a busy machine this request's waiter may time out too: the answer is adopted
            // all the same.
            _ = try? await session.validToken()
            while let event = await events.next(), event != .refreshed {}
        }
        #expect(try await session.validToken().accessToken == "after-abandon")
        #expect(calls.value == 2)
    }

    @Test("abandonRefreshAfter is never shorter than refreshTimeout and defaults to max(120, 4 × refreshTimeout)")
    func abandonDefaults() {
        #expect(AuthSession(refresh: { $0 }).abandonRefreshAfter == 120)
        #expect(AuthSession(refresh: { $0 }, refreshTimeout: 60).abandonRefreshAfter == 240)
        #expect(AuthSession(refresh: { $0 }, refreshTimeout: 10, abandonRefreshAfter: 1).abandonRefreshAfter == 10)
        #expect(AuthSession(refresh: { $0 }, abandonRefreshAfter: .nan).abandonRefreshAfter == 120)
    }
}
