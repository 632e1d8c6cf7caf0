import Courier
import CourierTesting
import Foundation
import Testing

/// A store that fails a write during a refresh (a full disk, a locked Keychain) must not lose
/// the rotated token: the server has retired the refresh token it replaced, so the new token
/// is the only valid credential there is. The session keeps it in memory, uses it, reports
/// the failed write, writes it as soon as the store accepts writes, and never presents the
/// retired refresh token again.
@Suite("A token the store refuses", .timeLimit(.minutes(20)))
struct UnstoredTokenTests {
    static func session(
        _ store: any TokenStore, server: RotatingTokenServer, calls: CallCounter? = nil,
        window: RefreshWindow? = RefreshWindow()
    ) -> AuthSession {
        AuthSession(
            store: store,
            refresh: { token in
                _ = calls?.increment()
                await Task.yield()
                return try server.refresh(token)
            }, refreshWindow: window, refreshTimeout: testRefreshTimeout)
    }

    @Test(
        "the refreshed token is used from memory, the failed write is reported with its reason, and the retired refresh token is never sent again"
    )
    func keptInMemory() async throws {
        let store = FullableTokenStore(RotatingTokenServer.initialToken())
        store.isFull = true
        let server = RotatingTokenServer()
        let session = Self.session(store, server: server)
        let reports = LockIsolated<[String]>([])
        let listening = Task {
            for await event in session.storageEvents {
                switch event {
                case .writeFailed(let failure): reports.withValue { $0.append("failed: \(failure)") }
                case .written: reports.withValue { $0.append("written") }
                }
            }
        }
        defer { listening.cancel() }

        let first = try await session.validToken()
        #expect(first.accessToken == "A1")
        #expect(store.stored?.refreshToken == "R0")
        let failure = try #require(session.unstoredTokenError)
        let text = failure.description
        #expect(text.contains("No space left on device"), "\(text)")
        #expect(text.contains("kept in memory"))
        #expect(!text.contains("R1") && !text.contains("A1"))
        _ = try await reports.wait(until: { $0.contains { $0.hasPrefix("failed:") } })

        // The server rejects the new access token: the next refresh presents R1, never R0.
        let second = try await session.refresh(rejecting: first)
        #expect(second.accessToken == "A2")
        #expect(server.retiredPresentations.isEmpty)
        #expect(await session.isSessionExpired == false)
        #expect(store.stored?.refreshToken == "R0")

        // The store accepts writes again: the next request writes the token kept in memory.
        store.isFull = false
        #expect(try await session.validToken().accessToken == "A2")
        #expect(store.stored?.accessToken == "A2")
        #expect(store.stored?.refreshToken == "R2")
        #expect(session.unstoredTokenError == nil)
        _ = try await reports.wait(until: { $0.last == "written" })
    }

    @Test("a session sharing the store uses the written token without refreshing, once the store accepts it")
    func sharedOnceWritten() async throws {
        let store = FullableTokenStore(RotatingTokenServer.initialToken())
        let shared = CoordinatedTokenStore(sharingWithinProcess: store)
        store.isFull = true
        let server = RotatingTokenServer()
        let calls = CallCounter()
        let writer = Self.session(shared, server: server, calls: calls)
        let reader = Self.session(shared, server: server, calls: calls)
        #expect(try await writer.validToken().accessToken == "A1")
        store.isFull = false
        // The writer's next request stores it; the reader adopts it before its own.
        #expect(await writer.token?.accessToken == "A1")
        #expect(try await reader.validToken().accessToken == "A1")
        #expect(calls.value == 1)
        #expect(server.retiredPresentations.isEmpty)
    }

    @Test(
        "while the store stays full, the refresh of another session sharing it does not present the retired token to the server after the writer's token is stored"
    )
    func laterRefreshUsesInMemoryToken() async throws {
        // The session's own later refresh, taken under the lease, must start from the token in
        // memory (the store still holds the retired one): 10 rotations with a full disk.
        let store = FullableTokenStore(RotatingTokenServer.initialToken())
        let shared = CoordinatedTokenStore(sharingWithinProcess: store)
        store.isFull = true
        let server = RotatingTokenServer()
        let session = Self.session(shared, server: server, window: nil)
        var token = try await session.validToken()
        for _ in 0..<10 {
            token = try await session.refresh(rejecting: token)
        }
        #expect(token.accessToken == "A11")
        #expect(server.retiredPresentations.isEmpty)
        #expect(store.stored?.refreshToken == "R0")
        store.isFull = false
        _ = try await session.validToken()
        #expect(store.stored?.refreshToken == "R11")
    }

    @Test("50 concurrent requests during a full-disk refresh: one refresh, all get the new token — 20 rounds")
    func concurrentRequests() async throws {
        for round in 0..<20 {
            let store = FullableTokenStore(RotatingTokenServer.initialToken())
            store.isFull = true
            let server = RotatingTokenServer()
            let calls = CallCounter()
            let session = Self.session(store, server: server, calls: calls)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        index.isMultiple(of: 2)
                            ? try await session.validToken().accessToken
                            : try await session.refresh(rejecting: RotatingTokenServer.initialToken()).accessToken
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens == ["A1"], "round \(round)")
            #expect(calls.value == 1, "round \(round)")
            #expect(server.retiredPresentations.isEmpty, "round \(round)")
        }
    }

    @Test("a refresh failure's description no longer claims the refresh token was kept")
    func refreshFailedText() {
        let text = AuthenticationError.refreshFailed(RefreshAbandoned(seconds: 1)).description
        #expect(!text.contains("was kept"))
        #expect(text.hasPrefix("Refreshing the access token failed: "))
    }
}
