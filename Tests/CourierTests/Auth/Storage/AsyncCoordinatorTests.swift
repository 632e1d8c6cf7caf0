import Courier
import CourierTesting
import Foundation
import Testing

/// The coordination protocol is asynchronous and throwing: a coordinator may wait on a
/// database, a store that cannot be reached is an error with its reason, the session reads
/// the store on first use (never in its initializer), and a refresh reads the token once.
@Suite("An asynchronous TokenStoreCoordinator", .timeLimit(.minutes(20)))
struct AsyncCoordinatorTests {
    /// A coordinator written before the protocol was asynchronous: plain synchronous methods
    /// still satisfy it.
    final class SynchronousCoordinator: TokenStoreCoordinator {
        private let state = LockIsolated<(token: OAuthToken?, generation: UInt64)>((nil, 0))
        private let inner = InProcessTokenCoordinator(store: InMemoryTokenStore())

        init(_ token: OAuthToken?) {
            state.withValue { $0.token = token }
        }

        func currentGeneration() -> UInt64? { state.value.generation }

        func read() throws -> StoredToken {
            let (token, generation) = state.value
            return StoredToken(token: token, generation: generation)
        }

        func write(_ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?) throws -> UInt64? {
            state.withValue { state in
                if let expected, expected != state.generation { return nil }
                state = (token, state.generation + 1)
                return state.generation
            }
        }

        func acquireLease(expiringAfter duration: TimeInterval, waitingAtMost timeout: TimeInterval) async throws
            -> any TokenLease
        {
            try await inner.acquireLease(expiringAfter: duration, waitingAtMost: timeout)
        }
    }

    /// A store on a "database": every call suspends (as a network round trip would), counts
    /// itself, and throws while the database is down.
    final class DatabaseCoordinator: TokenStoreCoordinator {
        struct Down: Error, CustomStringConvertible {
            var description: String { "the database at db.example.com:5432 refused the connection" }
        }

        private let row = LockIsolated<(token: OAuthToken?, generation: UInt64)>((nil, 0))
        private let leases = InProcessTokenCoordinator(store: InMemoryTokenStore())
        let isDown = LockIsolated(false)
        let reads = CallCounter()
        let checks = CallCounter()

        init(_ token: OAuthToken?) {
            row.withValue { $0.token = token }
        }

        private func roundTrip() async throws {
            await Task.yield()
            if isDown.value { throw Down() }
        }

        nonisolated(nonsending) func currentGeneration() async throws -> UInt64? {
            checks.increment()
            try await roundTrip()
            return row.value.generation
        }

        nonisolated(nonsending) func read() async throws -> StoredToken {
            reads.increment()
            try await roundTrip()
            let (token, generation) = row.value
            return StoredToken(token: token, generation: generation)
        }

        nonisolated(nonsending) func write(_ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?)
            async throws -> UInt64?
        {
            try await roundTrip()
            return row.withValue { row in
                if let expected, expected != row.generation { return nil }
                row = (token, row.generation + 1)
                return row.generation
            }
        }

        func acquireLease(expiringAfter duration: TimeInterval, waitingAtMost timeout: TimeInterval) async throws
            -> any TokenLease
        {
            try await roundTrip()
            return try await leases.acquireLease(expiringAfter: duration, waitingAtMost: timeout)
        }

        var token: OAuthToken? { row.value.token }
    }

    /// A store of the user's own, whose loads (each a decode of the token) are counted.
    struct CountingStore: TokenStore {
        let inner: InMemoryTokenStore
        let loads: CallCounter

        func load() throws -> OAuthToken? {
            loads.increment()
            return inner.load()
        }

        func save(_ token: OAuthToken?) throws { inner.save(token) }
    }

    struct DatabaseStore: TokenStore {
        let shared: DatabaseCoordinator
        func load() throws -> OAuthToken? { shared.token }
        func save(_ token: OAuthToken?) throws {}
        var coordinator: (any TokenStoreCoordinator)? { shared }
    }

    static func expired(_ name: String) -> OAuthToken {
        OAuthToken(accessToken: "at-\(name)", refreshToken: "rt-\(name)", expiresAt: Date() - 1, issuedAt: Date() - 61)
    }

    static func valid(_ name: String) -> OAuthToken {
        OAuthToken(accessToken: "at-\(name)", refreshToken: "rt-\(name)", expiresAt: Date() + 3600, issuedAt: Date())
    }

    @Test("a synchronous coordinator of a user's own still compiles and coordinates: one refresh")
    func synchronousConformer() async throws {
        let coordinator = SynchronousCoordinator(Self.expired("old"))
        let calls = CallCounter()
        let session = AuthSession(
            store: CoordinatedTokenStore(InMemoryTokenStore(), coordinator: coordinator),
            refresh: { _ in
                calls.increment()
                return Self.valid("new")
            }, refreshTimeout: testRefreshTimeout)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await session.validToken().accessToken } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == ["at-new"])
        #expect(calls.value == 1)
        #expect(try coordinator.read().token?.accessToken == "at-new")
    }

    @Test("the session reads the store on first use, not in its initializer; once for 50 first requests")
    func lazyLoad() async throws {
        let coordinator = DatabaseCoordinator(Self.valid("stored"))
        let session = AuthSession(store: DatabaseStore(shared: coordinator), refresh: { $0 })
        #expect(coordinator.reads.value == 0)
        #expect(coordinator.checks.value == 0)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await session.validToken().accessToken } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == ["at-stored"])
        #expect(await session.tokenLoadError == nil)
    }

    @Test("50 concurrent first requests on an expired stored token through a suspending store: one refresh — 20 rounds")
    func lazyLoadThenOneRefresh() async throws {
        for round in 0..<20 {
            let coordinator = DatabaseCoordinator(Self.expired("old-\(round)"))
            let calls = CallCounter()
            let session = AuthSession(
                store: DatabaseStore(shared: coordinator),
                refresh: { _ in
                    calls.increment()
                    await Task.yield()
                    return Self.valid("new-\(round)")
                }, refreshTimeout: testRefreshTimeout)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<50 { group.addTask { try await session.validToken().accessToken } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens == ["at-new-\(round)"], "round \(round)")
            #expect(calls.value == 1, "round \(round)")
            #expect(coordinator.token?.accessToken == "at-new-\(round)", "round \(round)")
        }
    }

    @Test(
        "a store that cannot be reached at first use: storeUnavailable with its reason, then the token once it is back")
    func unreachableAtFirstUse() async throws {
        let coordinator = DatabaseCoordinator(Self.valid("stored"))
        coordinator.isDown.setValue(true)
        let session = AuthSession(store: DatabaseStore(shared: coordinator), refresh: { $0 })
        await #expect {
            try await session.validToken()
        } throws: { error in
            guard case .storeUnavailable(let underlying) = error as? AuthenticationError else { return false }
            return underlying is DatabaseCoordinator.Down
        }
        #expect(await session.tokenLoadError is DatabaseCoordinator.Down)
        coordinator.isDown.setValue(false)
        #expect(try await session.validToken().accessToken == "at-stored")
    }

    @Test("a failing freshness check keeps a still-valid token in memory, and starts no refresh")
    func unreachableWithValidToken() async throws {
        let coordinator = DatabaseCoordinator(Self.valid("stored"))
        let calls = CallCounter()
        let session = AuthSession(
            store: DatabaseStore(shared: coordinator),
            refresh: { _ in
                calls.increment()
                return Self.valid("new")
            }, refreshTimeout: testRefreshTimeout)
        #expect(try await session.validToken().accessToken == "at-stored")
        coordinator.isDown.setValue(true)
        for _ in 0..<5 {
            #expect(try await session.validToken().accessToken == "at-stored")
        }
        #expect(await session.token?.accessToken == "at-stored")
        #expect(calls.value == 0)
    }

    @Test("a failing freshness check without a valid token: storeUnavailable, no refresh; a refresh once it is back")
    func unreachableWithExpiredToken() async throws {
        var now = Date()
        let clock = LockIsolated(now)
        let coordinator = DatabaseCoordinator(
            OAuthToken(accessToken: "at-old", refreshToken: "rt-old", expiresAt: now + 60, issuedAt: now))
        let calls = CallCounter()
        let session = AuthSession(
            store: DatabaseStore(shared: coordinator),
            refresh: { _ in
                calls.increment()
                return OAuthToken(accessToken: "at-new", refreshToken: "rt-new", expiresAt: clock.value + 3600)
            }, now: { clock.value }, refreshTimeout: testRefreshTimeout)
        #expect(try await session.validToken().accessToken == "at-old")
        coordinator.isDown.setValue(true)
        now += 120
        clock.setValue(now)
        await #expect {
            try await session.validToken()
        } throws: { error in
            guard case .storeUnavailable(let underlying) = error as? AuthenticationError else { return false }
            return "\(underlying)".contains("db.example.com")
        }
        #expect(calls.value == 0)
        coordinator.isDown.setValue(false)
        #expect(try await session.validToken().accessToken == "at-new")
        #expect(calls.value == 1)
    }

    @Test("a refresh through the lock-file coordinator reads (decodes) the stored token once")
    func oneDecodePerRefresh() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-decodes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let loads = CallCounter()
        let inner = InMemoryTokenStore()
        let store = CoordinatedTokenStore(
            CountingStore(inner: inner, loads: loads), lockFile: folder.appendingPathComponent("token.lock"))
        try store.save(Self.expired("old"))
        let calls = CallCounter()
        let session = AuthSession(
            store: store,
            refresh: { _ in
                calls.increment()
                return Self.valid("new")
            }, refreshTimeout: testRefreshTimeout)
        // The first use reads the store (the expired token); what the refresh reads is counted
        // from here.
        #expect(await session.token?.accessToken == "at-old")
        loads.reset()
        #expect(try await session.validToken().accessToken == "at-new")
        #expect(calls.value == 1)
        #expect(loads.value == 1, "one read under the lease; the fenced write knows the generation from it")
        #expect(inner.load()?.accessToken == "at-new")
    }
}
