// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

// The samples of SharingSessionsBetweenProcesses.md, kept in sync by DocSamplesSyncTests. The
// fleet recipe runs against in-memory stand-ins of Redis and of the shared table (below the
// samples); the multi-process runs are in the integration tests (CrossProcessRefreshTests).

enum SharingSessions {  // sample scaffold
    static func makeToolSession(refresh: @escaping AuthSession.RefreshClosure) -> AuthSession {
        let tokenFile = URL(fileURLWithPath: NSHomeDirectory())
            .appendingPathComponent(".config/mytool/token.json")
        return AuthSession(store: FileTokenStore(url: tokenFile), refresh: refresh)
    }

    struct DefaultsTokenStore: TokenStore {
        let suiteName: String
        let key = "oauth-token"
        var defaults: UserDefaults { UserDefaults(suiteName: suiteName)! }

        func load() throws -> OAuthToken? {
            guard let data = defaults.data(forKey: key) else { return nil }
            return try JSONDecoder().decode(OAuthToken.self, from: data)
        }

        func save(_ token: OAuthToken?) throws {
            defaults.set(try token.map { try JSONEncoder().encode($0) }, forKey: key)
        }
    }

    static func makeSharedStore(suiteName: String, container: URL) -> CoordinatedTokenStore {
        CoordinatedTokenStore(
            DefaultsTokenStore(suiteName: suiteName),
            lockFile: container.appendingPathComponent("oauth-token.lock"))
    }

    static func watchForSignOut(_ session: AuthSession, showLogin: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task {
            for await event in session.events where event == .sessionExpired {
                if let expiry = session.sessionExpiry {
                    print("The session ended: \(expiry)")
                }
                await showLogin()
            }
        }
    }

    /// The Redis commands the lease needs.
    protocol RedisCommands: Sendable {
        /// `SET key value NX PX milliseconds`: whether the key was set.
        func setIfAbsent(_ key: String, _ value: String, milliseconds: Int) async throws -> Bool
        /// Deletes `key` if it still holds `value` (a Lua script run with `EVAL`).
        func deleteIfEqual(_ key: String, _ value: String) async throws
        /// `GET key`.
        func value(of key: String) async throws -> String?
    }

    /// The shared table that holds the token and the generation of its last write.
    protocol TokenTable: Sendable {
        func select() async throws -> (token: OAuthToken?, generation: UInt64)
        /// `UPDATE … SET token = ?, generation = generation + 1 WHERE generation = expected`:
        /// the new generation, or `nil` when another server wrote first.
        func update(_ token: OAuthToken?, ifGeneration expected: UInt64?) async throws -> UInt64?
    }

    final class FleetTokenCoordinator: TokenStoreCoordinator {
        let redis: any RedisCommands
        let table: any TokenTable
        let leaseKey: String

        init(redis: any RedisCommands, table: any TokenTable, leaseKey: String = "oauth-token:lease") {
            self.redis = redis
            self.table = table
            self.leaseKey = leaseKey
        }

        // No cheap check across servers: a server hears about a new token when its own is due
        // or rejected, and reads the table under the lease.
        nonisolated(nonsending) func currentGeneration() async throws -> UInt64? { nil }

        nonisolated(nonsending) func read() async throws -> StoredToken {
            let row = try await table.select()
            return StoredToken(token: row.token, generation: row.generation)
        }

        nonisolated(nonsending) func write(_ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?)
            async throws -> UInt64?
        {
            try await table.update(token, ifGeneration: expected)
        }

        func acquireLease(expiringAfter duration: TimeInterval, waitingAtMost timeout: TimeInterval) async throws
            -> any TokenLease
        {
            let owner = UUID().uuidString
            let deadline = Date().addingTimeInterval(timeout)
            while try await !redis.setIfAbsent(leaseKey, owner, milliseconds: Int(duration * 1000)) {
                guard Date() < deadline else { throw TokenLeaseTimeout(seconds: timeout) }
                try await Task.sleep(for: .milliseconds(20))
            }
            return RedisLease(redis: redis, key: leaseKey, owner: owner)
        }
    }

    struct RedisLease: TokenLease {
        let redis: any RedisCommands
        let key: String
        let owner: String

        nonisolated(nonsending) func release() async {
            // Only its owner deletes it: a lease that expired and was taken by another server stays.
            try? await redis.deleteIfEqual(key, owner)
        }

        nonisolated(nonsending) func isHeld() async -> Bool {
            // Redis unreachable: not known to be held, so the refresh token stays home.
            (try? await redis.value(of: key)) == owner
        }
    }

    struct FleetTokenStore: TokenStore {
        let shared: FleetTokenCoordinator

        // Sessions read and write only through the coordinator; a direct load or save
        // would wait on the database, which a synchronous call must not do.
        func load() throws -> OAuthToken? { throw CocoaError(.featureUnsupported) }
        func save(_ token: OAuthToken?) throws { throw CocoaError(.featureUnsupported) }
        var coordinator: (any TokenStoreCoordinator)? { shared }
    }
}  // sample scaffold

extension SharingSessions {
    /// Redis in memory: keys with an expiry, as `SET NX PX` and the owner-checked delete need.
    actor InMemoryRedis: RedisCommands {
        private var values: [String: (value: String, expiresAt: Date)] = [:]

        func setIfAbsent(_ key: String, _ value: String, milliseconds: Int) -> Bool {
            if let current = values[key], current.expiresAt > Date() { return false }
            values[key] = (value, Date().addingTimeInterval(Double(milliseconds) / 1000))
            return true
        }

        func deleteIfEqual(_ key: String, _ value: String) {
            if values[key]?.value == value { values[key] = nil }
        }

        func value(of key: String) -> String? { holder(of: key) }

        func holder(of key: String) -> String? {
            guard let current = values[key], current.expiresAt > Date() else { return nil }
            return current.value
        }
    }

    /// The shared table in memory, with its conditional update.
    final class InMemoryTokenTable: TokenTable {
        private let row = LockIsolated<(token: OAuthToken?, generation: UInt64)>((nil, 0))

        func select() async throws -> (token: OAuthToken?, generation: UInt64) { row.value }

        func update(_ token: OAuthToken?, ifGeneration expected: UInt64?) async throws -> UInt64? {
            row.withValue { row in
                if let expected, expected != row.generation { return nil }
                row = (token, row.generation + 1)
                return row.generation
            }
        }
    }

    @Suite("Sharing a session between processes: samples", .timeLimit(.minutes(20)))
    struct Samples {
        @Test("the fleet recipe: two servers' sessions through the Redis lease refresh once — 10 rounds")
        func fleet() async throws {
            for round in 0..<10 {
                let redis = InMemoryRedis()
                let table = InMemoryTokenTable()
                let expired = OAuthToken(
                    accessToken: "at-\(round)", refreshToken: "rt-\(round)", expiresAt: Date() - 1, issuedAt: Date() - 61)
                _ = try await table.update(expired, ifGeneration: nil)
                let calls = CallCounter()
                func server() -> AuthSession {
                    AuthSession(
                        store: FleetTokenStore(shared: FleetTokenCoordinator(redis: redis, table: table)),
                        refresh: { token in
                            calls.increment()
                            await Task.yield()
                            return OAuthToken(accessToken: "new-\(round)", refreshToken: "rt-next", expiresAt: Date() + 3600)
                        }, refreshTimeout: testRefreshTimeout)
                }
                let servers = [server(), server()]
                let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                    for index in 0..<40 {
                        let session = servers[index % 2]
                        group.addTask { try await session.validToken().accessToken }
                    }
                    return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                }
                #expect(calls.value == 1, "round \(round)")
                #expect(tokens == ["new-\(round)"])
                #expect(try await table.select().token?.accessToken == "new-\(round)")
            }
        }

        @Test("the fleet lease: held by one owner, released only by it")
        func fleetLease() async throws {
            let redis = InMemoryRedis()
            let coordinator = FleetTokenCoordinator(redis: redis, table: InMemoryTokenTable())
            let lease = try await coordinator.acquireLease(expiringAfter: 600, waitingAtMost: 600)
            await #expect(throws: TokenLeaseTimeout.self) {
                _ = try await coordinator.acquireLease(expiringAfter: 600, waitingAtMost: 0.05)
            }
            let owner = await redis.holder(of: coordinator.leaseKey)
            #expect(owner != nil)
            // Another server's stale release does nothing.
            await redis.deleteIfEqual(coordinator.leaseKey, "someone-else")
            #expect(await redis.holder(of: coordinator.leaseKey) == owner)
            await lease.release()
            let next = try await coordinator.acquireLease(expiringAfter: 600, waitingAtMost: 600)
            await next.release()
        }

        @Test("a store of your own, through CoordinatedTokenStore: sessions on two instances refresh once")
        func defaultsStore() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-docs-\(UUID())")
            defer { try? FileManager.default.removeItem(at: folder) }
            let suite = "courier-docs-\(UUID().uuidString)"
            defer { UserDefaults.standard.removePersistentDomain(forName: suite) }
            let first = makeSharedStore(suiteName: suite, container: folder)
            try first.save(OAuthToken(accessToken: "old", refreshToken: "rt", expiresAt: Date() - 1, issuedAt: Date() - 61))
            let calls = CallCounter()
            let refresh: AuthSession.RefreshClosure = { _ in
                calls.increment()
                return OAuthToken(accessToken: "new", refreshToken: "rt-2", expiresAt: Date() + 3600)
            }
            // The second session waits for the first one's lease: on a machine busy enough to
            // take 30 s for the first refresh's turns, the default time-out would end that wait.
            let sessions = [
                AuthSession(store: first, refresh: refresh, refreshTimeout: testRefreshTimeout),
                AuthSession(
                    store: makeSharedStore(suiteName: suite, container: folder), refresh: refresh,
                    refreshTimeout: testRefreshTimeout),
            ]
            async let a = sessions[0].validToken()
            async let b = sessions[1].validToken()
            #expect(try await [a.accessToken, b.accessToken] == ["new", "new"])
            #expect(calls.value == 1)
            _ = makeToolSession(refresh: refresh)
            // The watcher lives as long as its task: ended here, so the session can go.
            watchForSignOut(sessions[0], showLogin: {}).cancel()
        }
    }
}
