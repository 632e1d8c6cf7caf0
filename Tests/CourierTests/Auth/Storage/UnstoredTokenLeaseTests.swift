import Courier
import CourierTesting
import Foundation
import Testing

/// A session whose renewed token the store refused keeps the store's lease until the token is
/// written: the store still holds the token it replaced, whose refresh token the server has
/// retired, and another session (in this process or another) that took the lease would read it
/// and present the retired refresh token — the server would revoke the family and log everyone
/// out. The others wait for the lease instead, and adopt the token once it is written.
@Suite("The lease kept for a token the store refuses", .timeLimit(.minutes(20)))
struct UnstoredTokenLeaseTests {
    /// Two sessions sharing one store: `first` through `coordinator`, `second` through a
    /// coordinator of its own (`secondCoordinator`, another process's) or the same one, watched.
    struct Pair {
        let store = FullableTokenStore(RotatingTokenServer.initialToken())
        let server = RotatingTokenServer()
        /// The refresh tokens presented to the server, in order, by either session.
        let presented = LockIsolated<[String]>([])
        /// "waiting" when the second session waits for the lease; "done" when its request ends.
        let log = LockIsolated<[String]>([])
        let first: AuthSession
        let second: AuthSession

        init(coordinators: (any TokenStore) -> (any TokenStoreCoordinator, any TokenStoreCoordinator)) {
            let (one, two) = coordinators(store)
            first = Self.session(CoordinatedTokenStore(store, coordinator: one), server, presented)
            second = Self.session(
                CoordinatedTokenStore(store, coordinator: WatchedCoordinator(inner: two, log: log)), server, presented)
        }

        static func session(_ store: any TokenStore, _ server: RotatingTokenServer, _ presented: LockIsolated<[String]>)
            -> AuthSession
        {
            AuthSession(
                store: store,
                refresh: { token in
                    presented.withValue { $0.append(token.refreshToken ?? "none") }
                    return try server.refresh(token)
                }, refreshWindow: nil, refreshTimeout: testRefreshTimeout)
        }

        /// The first session refreshes while the store is full; the second then needs a new
        /// token too (its own is the expired one the store still holds). Once the store
        /// accepts writes — and, with `nudge`, the first session makes a request, else its
        /// retries alone write the token — the second adopts the first's token, never
        /// presenting the retired refresh token; then it refreshes, and the first adopts that.
        func run(nudge: Bool, round: Int) async throws {
            store.isFull = true
            #expect(try await first.validToken().accessToken == "A1", "round \(round)")
            #expect(first.unstoredTokenError != nil, "round \(round)")

            let log = self.log
            let second = self.second
            let waiting = Task { () -> Result<OAuthToken, any Error> in
                let result: Result<OAuthToken, any Error>
                do {
                    result = .success(try await second.validToken())
                } catch {
                    result = .failure(error)
                }
                log.withValue { $0.append("done") }
                return result
            }
            // The second session tries to renew while the first's token is unstored.
            _ = try await log.wait(until: { !$0.isEmpty })
            #expect(log.value == ["waiting"], "round \(round)")

            store.isFull = false
            if nudge { _ = try? await first.validToken() }
            let adopted = await waiting.value
            #expect((try? adopted.get())?.accessToken == "A1", "round \(round): \(adopted)")

            // The second refreshes with the first's refresh token; the first adopts the result.
            let renewed = try? await second.refresh(rejecting: try? adopted.get())
            #expect(renewed?.accessToken == "A2", "round \(round)")
            #expect((try? await first.validToken())?.accessToken == "A2", "round \(round)")

            #expect(presented.value == ["R0", "R1"], "round \(round)")
            #expect(server.retiredPresentations.isEmpty, "round \(round)")
            #expect(await first.isSessionExpired == false, "round \(round)")
            #expect(await second.isSessionExpired == false, "round \(round)")
            #expect(store.stored?.refreshToken == "R2", "round \(round)")
        }
    }

    @Test(
        "two sessions in one process: the other never presents the retired refresh token, and adopts the new one once written — 20 rounds"
    )
    func inProcess() async throws {
        for round in 0..<20 {
            let pair = Pair { store in
                let shared = InProcessTokenCoordinator(store: store)
                return (shared, shared)
            }
            try await pair.run(nudge: true, round: round)
        }
    }

    @Test("two sessions in one process: the holder's retries write the token and free the lease with no request")
    func inProcessRetried() async throws {
        let pair = Pair { store in
            let shared = InProcessTokenCoordinator(store: store)
            return (shared, shared)
        }
        try await pair.run(nudge: false, round: 0)
    }

    @Test(
        "two processes on one lock file: the other never presents the retired refresh token, and adopts the new one once written — 20 rounds"
    )
    func acrossProcesses() async throws {
        for round in 0..<20 {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("courier-unstored-lease-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let lockFile = directory.appendingPathComponent("token.lock")
            // Each coordinator opens the lock file itself, as a process of its own would.
            let pair = Pair { store in
                (
                    LockFileTokenCoordinator(lockFile: lockFile, store: store),
                    LockFileTokenCoordinator(lockFile: lockFile, store: store)
                )
            }
            try await pair.run(nudge: round.isMultiple(of: 2), round: round)
        }
    }

    @Test("a session that goes away frees the lease it kept: the other may refresh again")
    func holderGone() async throws {
        let store = FullableTokenStore(RotatingTokenServer.initialToken())
        let coordinator = InProcessTokenCoordinator(store: store)
        let server = RotatingTokenServer()
        let presented = LockIsolated<[String]>([])
        store.isFull = true
        var first: AuthSession? = Pair.session(
            CoordinatedTokenStore(store, coordinator: coordinator), server, presented)
        #expect(try await first?.validToken().accessToken == "A1")
        first = nil
        // The token it kept is lost with it: the lease is free, and the refresh token the store
        // holds is presented (the server rejects it, as it should).
        let second = Pair.session(CoordinatedTokenStore(store, coordinator: coordinator), server, presented)
        _ = try? await second.validToken()
        #expect(presented.value == ["R0", "R0"])
    }
}

/// A coordinator that says when its session waits for the lease.
final class WatchedCoordinator: TokenStoreCoordinator {
    let inner: any TokenStoreCoordinator
    let log: LockIsolated<[String]>

    init(inner: any TokenStoreCoordinator, log: LockIsolated<[String]>) {
        self.inner = inner
        self.log = log
    }

    nonisolated(nonsending) func currentGeneration() async throws -> UInt64? {
        try await inner.currentGeneration()
    }

    nonisolated(nonsending) func read() async throws -> StoredToken { try await inner.read() }

    nonisolated(nonsending) func write(_ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?)
        async throws -> UInt64?
    {
        try await inner.write(token, change: change, ifGeneration: expected)
    }

    func acquireLease(expiringAfter duration: TimeInterval, waitingAtMost timeout: TimeInterval) async throws
        -> any TokenLease
    {
        if timeout > 0 { log.withValue { $0.append("waiting") } }
        return try await inner.acquireLease(expiringAfter: duration, waitingAtMost: timeout)
    }
}
