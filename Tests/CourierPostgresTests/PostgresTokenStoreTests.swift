// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    @testable import CourierPostgres
    import CourierTestServer
    import Courier
    import CourierTesting
    import Foundation
    import Testing

    @Suite("PostgresTokenStore against a real PostgreSQL", .serialized, .timeLimit(.minutes(5)))
    struct PostgresTokenStoreTests {
        /// Two coordinators of key "k", each with a database object of its own: two processes
        /// that share nothing but the server.
        static func twoProcesses(_ server: TestPostgres) throws -> (PostgresTokenCoordinator, PostgresTokenCoordinator)
        {
            func one() throws -> PostgresTokenCoordinator {
                PostgresTokenCoordinator(database: try PostgresDatabase(connection: server.connection), key: "k")
            }
            return (try one(), try one())
        }

        static func token(_ name: String) -> OAuthToken {
            OAuthToken(
                accessToken: "access-\(name)", refreshToken: "refresh-\(name)",
                expiresAt: Date(timeIntervalSinceReferenceDate: 900_000_000.125))
        }

        @Test(
            "a fenced write: the second writer from the same generation writes nothing; the table is created on first use"
        )
        func fencedWrite() async throws {
            try await TestPostgres.with { server in
                let (a, b) = try Self.twoProcesses(server)
                let empty = try await a.read()
                #expect(empty == StoredToken(token: nil, generation: 0))
                let first = try await a.write(Self.token("1"), change: .refreshed, ifGeneration: 0)
                #expect(first == 1)
                let late = try await b.write(Self.token("2"), change: .refreshed, ifGeneration: 0)
                #expect(late == nil)
                let stored = try await b.read()
                #expect(stored == StoredToken(token: Self.token("1"), generation: 1, change: .refreshed))
                let signedOut = try await b.write(nil, change: .signedOut, ifGeneration: nil)
                #expect(signedOut == 2)
                #expect(try await a.read() == StoredToken(token: nil, generation: 2, change: .signedOut))
                // The synchronous TokenStore calls see the same row.
                let store = PostgresTokenStore(database: a.database, key: "k")
                try store.save(Self.token("3"))
                #expect(try store.load() == Self.token("3"))
                #expect(try await b.read().generation == 3)
                // Another key is another row.
                let other = PostgresTokenCoordinator(database: a.database, key: "other")
                #expect(try await other.read() == StoredToken(token: nil, generation: 0))
            }
        }

        @Test("a table created by 1.5.0 (no lease_taken) is upgraded on first use, and its token is kept")
        func upgradesA15Table() async throws {
            try await TestPostgres.with { server in
                let setup = try PostgresDatabase(connection: server.connection)
                let json = String(decoding: try JSONEncoder().encode(Self.token("old")), as: UTF8.self)
                _ = try await setup.query(
                    """
                    CREATE TABLE courier_tokens (key text PRIMARY KEY, token jsonb, change smallint,
                        generation bigint NOT NULL DEFAULT 0, lease_owner uuid, lease_expires timestamptz,
                        lease_backed boolean NOT NULL DEFAULT false, updated_at timestamptz NOT NULL DEFAULT now())
                    """, [])
                _ = try await setup.query(
                    "INSERT INTO courier_tokens (key, token, generation) VALUES ('k', $1::jsonb, 4)", [json])
                let (a, _) = try Self.twoProcesses(server)
                #expect(try await a.read() == StoredToken(token: Self.token("old"), generation: 4))
                let lease = try await a.acquireLease(expiringAfter: 600, waitingAtMost: 0)
                #expect(try await a.write(Self.token("new"), change: .refreshed, ifGeneration: 4) == 5)
                await lease.release()
                let columns = try await setup.query(
                    "SELECT 1 FROM pg_attribute WHERE attrelid = 'courier_tokens'::regclass AND attname = 'lease_taken'",
                    [])
                #expect(columns.count == 1)
            }
        }

        @Test("currentGeneration() costs no round trip while nothing changed; another process's write invalidates it")
        func generationCache() async throws {
            try await TestPostgres.with { server in
                let (a, b) = try Self.twoProcesses(server)
                _ = try await b.read()
                await a.database.waitUntil { a.database.isListening }
                let generation = try await a.currentGeneration()
                let statements = a.database.statementCount
                for _ in 0..<1000 { #expect(try await a.currentGeneration() == generation) }
                #expect(a.database.statementCount == statements)
                _ = try await b.write(Self.token("1"), change: .refreshed, ifGeneration: generation)
                // The write's notification reaches a's listener, which forgets the cached value.
                await a.database.waitUntil { a.database.cachedGeneration(of: "k") == nil }
                #expect(try await a.currentGeneration() == (generation ?? 0) + 1)
                // A bare NOTIFY from any connection invalidates it too.
                let cachedAgain = a.database.statementCount
                _ = try await a.currentGeneration()
                #expect(a.database.statementCount == cachedAgain)
                _ = try await b.database.query("SELECT pg_notify($1, $2)", [b.database.channel, "k"])
                await a.database.waitUntil { a.database.cachedGeneration(of: "k") == nil }
                #expect(a.database.cachedGeneration(of: "k") == nil)
            }
        }

        @Test("a session waiting for the lease wakes on the release's NOTIFY, not on a poll")
        func leaseWaiterWakesOnNotify() async throws {
            try await TestPostgres.with { server in
                let (holder, _) = try Self.twoProcesses(server)
                // Its fallback try comes after 10 minutes: past the suite's time limit, so only
                // the release's announcement can hand it the lease in time.
                let waiter = PostgresTokenCoordinator(
                    database: try PostgresDatabase(connection: server.connection), key: "k",
                    retryInterval: .seconds(600))
                _ = try await waiter.read()
                await waiter.database.waitUntil { waiter.database.isListening }
                let lease = try await holder.acquireLease(expiringAfter: 600, waitingAtMost: 5)
                let before = waiter.database.statementCount
                let waiting = Task { try await waiter.acquireLease(expiringAfter: 600, waitingAtMost: 900) }
                // Its first try (the advisory lock and the lease row) has failed before the release.
                await waiter.database.waitUntil { waiter.database.statementCount >= before + 2 }
                let tried = waiter.database.statementCount
                #expect(tried >= before + 2)
                await lease.release()
                let taken = try await waiting.value
                #expect(await taken.isHeld())
                // One more try, after the announcement: no poll in between.
                #expect(waiter.database.statementCount - tried <= 4)
                await taken.release()
            }
        }

        @Test("the lease is exclusive across two stores (two processes), and the next one takes it once released")
        func leaseExclusive() async throws {
            try await TestPostgres.with { server in
                let (a, b) = try Self.twoProcesses(server)
                let lease = try await a.acquireLease(expiringAfter: 600, waitingAtMost: 5)
                await #expect(throws: TokenLeaseTimeout.self) {
                    _ = try await b.acquireLease(expiringAfter: 600, waitingAtMost: 0.2)
                }
                // Another key is not held.
                let otherKey = PostgresTokenCoordinator(database: b.database, key: "other")
                await otherKey.acquireLeaseReleasing()
                #expect(await lease.isHeld())
                await lease.release()
                #expect(await !lease.isHeld())
                let next = try await b.acquireLease(expiringAfter: 600, waitingAtMost: 5)
                #expect(await next.isHeld())
                await next.release()
            }
        }

        @Test(
            "a holder whose lease connection is killed keeps the lease until it expires, and its write goes through"
        )
        func killedHolder() async throws {
            try await TestPostgres.with { server in
                let (a, b) = try Self.twoProcesses(server)
                let lease = try await a.acquireLease(expiringAfter: 600, waitingAtMost: 5)
                let read = try await a.read()
                let killed = try await b.database.query(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted", [])
                #expect(killed.count == 1)
                // The advisory lock is free now, but the holder may be at the token endpoint:
                // nobody takes its lease before it expires.
                await #expect(throws: TokenLeaseTimeout.self) {
                    _ = try await b.acquireLease(expiringAfter: 600, waitingAtMost: 0.2)
                }
                #expect(await lease.isHeld())
                #expect(try await a.write(Self.token("new"), change: .refreshed, ifGeneration: read.generation) != nil)
                await lease.release()
                let taken = try await b.acquireLease(expiringAfter: 600, waitingAtMost: 10)
                #expect(await taken.isHeld())
                await taken.release()
            }
        }

        @Test("a hung holder is given up on after its lease expires (the database's clock); its late write is refused")
        func hungHolder() async throws {
            try await TestPostgres.with { server in
                let (a, b) = try Self.twoProcesses(server)
                let lease = try await a.acquireLease(expiringAfter: 0.3, waitingAtMost: 5)
                let read = try await a.read()
                let taken = try await b.acquireLease(expiringAfter: 600, waitingAtMost: 30)
                #expect(await !lease.isHeld())
                #expect(try await a.write(Self.token("late"), change: .refreshed, ifGeneration: read.generation) == nil)
                let current = try await b.read()
                #expect(try await b.write(Self.token("b"), change: .refreshed, ifGeneration: current.generation) != nil)
                await lease.release()
                #expect(await taken.isHeld())
                await taken.release()
            }
        }

        @Test("after a server restart the store reconnects: reads, writes, leases and the generation cache work again")
        func restart() async throws {
            try await TestPostgres.with { server in
                let (a, b) = try Self.twoProcesses(server)
                #expect(try await a.write(Self.token("1"), change: .refreshed, ifGeneration: 0) == 1)
                await a.database.waitUntil { a.database.isListening }
                let held = try await a.acquireLease(expiringAfter: 600, waitingAtMost: 5)
                try await server.restart()
                // Its advisory lock went with the restart, not with its holder: nobody takes it
                // over before it expires (the holder may be about to write the token it got),
                // and it is still this holder's.
                await #expect(throws: TokenLeaseTimeout.self) {
                    try await b.acquireLease(expiringAfter: 600, waitingAtMost: 0.2)
                }
                #expect(await held.isHeld())
                await held.release()
                // Released, it is the next session's at once.
                let next = try await b.acquireLease(expiringAfter: 600, waitingAtMost: 5)
                await next.release()
                #expect(try await a.read().token == Self.token("1"))
                #expect(try await a.write(Self.token("2"), change: .refreshed, ifGeneration: 1) == 2)
                let lease = try await a.acquireLease(expiringAfter: 600, waitingAtMost: 5)
                await lease.release()
                // Both listeners reconnect after the restart (each waits for its own events).
                await a.database.waitUntil { a.database.isListening }
                await b.database.waitUntil { b.database.isListening }
                #expect(try await b.currentGeneration() == 2)
                _ = try await a.write(Self.token("3"), change: .refreshed, ifGeneration: 2)
                await b.database.waitUntil { b.database.cachedGeneration(of: "k") == nil }
                #expect(try await b.currentGeneration() == 3)
            }
        }

        @Test(
            "200 concurrent calls share the pool (4 connections and the listener), and a cached freshness check sends no statement"
        )
        func pooled() async throws {
            try await TestPostgres.with { server in
                let database = try PostgresDatabase(connection: server.connection, maximumConnections: 4)
                let a = PostgresTokenCoordinator(database: database, key: "k")
                _ = try await a.write(Self.token("1"), change: .signedIn, ifGeneration: nil)
                try await withThrowingTaskGroup(of: StoredToken.self) { group in
                    for _ in 0..<200 { group.addTask { try await a.read() } }
                    for try await stored in group { #expect(stored.token == Self.token("1")) }
                }
                let backends = try await database.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'", [])
                let count = Int(backends.first?.first.flatMap { $0 } ?? "") ?? 0
                #expect((1...5).contains(count), "\(count) backends")
                // The freshness check every signed request makes, from the cache.
                await database.waitUntil { database.isListening }
                _ = try await a.currentGeneration()
                let statements = database.statementCount
                for _ in 0..<10_000 { _ = try await a.currentGeneration() }
                #expect(database.statementCount == statements)
            }
        }

        @Test("a lease asked for with a NaN, infinite or negative duration or wait is clamped, never a trap")
        func hostileLeaseTimes() async throws {
            try await TestPostgres.with { server in
                let (a, b) = try Self.twoProcesses(server)
                for (duration, wait) in [(TimeInterval.nan, TimeInterval.infinity), (.infinity, .nan), (-5, -5)] {
                    // Granted (the lease is free) and given back: the next round takes it again.
                    let lease = try await a.acquireLease(expiringAfter: duration, waitingAtMost: wait)
                    await lease.release()
                }
                // A held lease and a negative or NaN wait: refused at once, not a wait forever.
                let held = try await a.acquireLease(expiringAfter: 600, waitingAtMost: 5)
                for wait in [TimeInterval.nan, -1] {
                    await #expect(throws: TokenLeaseTimeout.self) {
                        _ = try await b.acquireLease(expiringAfter: 600, waitingAtMost: wait)
                    }
                }
                await held.release()
            }
        }

        @Test("an unreachable database is a typed error that names the reason and never the password")
        func unreachable() async throws {
            let port = try TestPostgres.freePort()
            let database = try PostgresDatabase(
                connection: "host=127.0.0.1 port=\(port) user=courier password=hunter2-secret connect_timeout=2")
            let coordinator = PostgresTokenCoordinator(database: database, key: "k")
            let error = await #expect(throws: PostgresStoreError.self) { _ = try await coordinator.read() }
            #expect(error?.kind == .connectionFailed)
            let description = error.map { "\($0)" } ?? ""
            #expect(description.contains("refused"), "\(description)")
            #expect(!description.contains("hunter2"), "\(description)")
            #expect(description.contains("password=***"), "\(description)")
            await #expect(throws: PostgresStoreError.self) {
                _ = try await coordinator.acquireLease(expiringAfter: 60, waitingAtMost: 1)
            }
            #expect(throws: PostgresStoreError.self) { _ = try PostgresTokenStore(database: database, key: "k").load() }
        }

        @Test(
            "a server that never answers blocks no thread: other calls finish meanwhile, and it times out with a typed error"
        )
        func silentServer() async throws {
            try await TestPostgres.with { server in
                let silent = try SilentListener()
                let hung = PostgresTokenCoordinator(
                    database: try PostgresDatabase(
                        connection: "host=127.0.0.1 port=\(silent.port) user=x password=s3cret", connectTimeout: 15),
                    key: "k")
                let healthy = PostgresTokenCoordinator(
                    database: try PostgresDatabase(connection: server.connection), key: "k")
                let hungFinished = LockIsolated(false)
                let hungCalls = Task {
                    await withTaskGroup(of: PostgresStoreError?.self) { group in
                        for _ in 0..<20 {
                            group.addTask {
                                do {
                                    _ = try await hung.read()
                                    return nil
                                } catch let error as PostgresStoreError {
                                    return error
                                } catch {
                                    return nil
                                }
                            }
                        }
                        let errors = await group.reduce(into: []) { $0.append($1) }
                        hungFinished.setValue(true)
                        return errors
                    }
                }
                // With Swift's two cooperative threads here, one blocked libpq call would stall these.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<100 { group.addTask { _ = try await healthy.read() } }
                    try await group.waitForAll()
                }
                #expect(!hungFinished.value, "the healthy calls finished while the hung ones still waited (15 s)")
                let errors = await hungCalls.value
                #expect(errors.count == 20)
                #expect(errors.allSatisfy { $0?.kind == .connectionFailed })
                #expect(errors.allSatisfy { !"\($0.map { "\($0)" } ?? "")".contains("s3cret") })
                silent.close()
            }
        }

        @Test(
            "AuthSession on two stores (two processes): 50 concurrent requests each for an expired token, 20 rounds: one refresh a round, no refresh token presented twice"
        )
        func sessionStorm() async throws {
            try await TestPostgres.with { server in
                let now = LockIsolated(Date(timeIntervalSince1970: 1_000_000))
                let issued = LockIsolated((count: 0, current: "refresh-0", reused: 0))
                let refresh: @Sendable (OAuthToken) async throws -> OAuthToken = { token in
                    issued.withValue { state in
                        if token.refreshToken != state.current { state.reused += 1 }
                        state.count += 1
                        state.current = "refresh-\(state.count)"
                    }
                    let state = issued.value
                    return OAuthToken(
                        accessToken: "access-\(state.count)", refreshToken: state.current,
                        expiresAt: now.value.addingTimeInterval(60))
                }
                let sessions = try [0, 1].map { _ in
                    AuthSession(
                        store: PostgresTokenStore(
                            database: try PostgresDatabase(connection: server.connection), key: "k"),
                        refresh: refresh, now: { now.value }, refreshWindow: nil)
                }
                try await sessions[0].signIn(
                    OAuthToken(
                        accessToken: "access-0", refreshToken: "refresh-0", expiresAt: now.value.addingTimeInterval(60))
                )
                for round in 1...20 {
                    now.withValue { $0 = $0.addingTimeInterval(120) }  // every stored token has expired
                    let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                        for index in 0..<100 {
                            group.addTask { try await sessions[index % 2].validToken().accessToken }
                        }
                        return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                    }
                    #expect(tokens == ["access-\(round)"], "round \(round)")
                    #expect(issued.value.count == round, "round \(round)")
                }
                #expect(issued.value.reused == 0)
            }
        }

        @Test("a table name that is not an identifier is refused before anything is sent")
        func invalidName() {
            let error = #expect(throws: PostgresStoreError.self) {
                _ = try PostgresDatabase(connection: "host=127.0.0.1", table: "tokens; DROP TABLE users")
            }
            #expect(error?.kind == .invalidName)
            #expect(throws: Never.self) { _ = try PostgresDatabase(connection: "host=127.0.0.1", table: "auth.tokens") }
        }
    }

    extension PostgresTokenCoordinator {
        /// Takes and releases the lease at once (it must be free).
        func acquireLeaseReleasing() async {
            let lease = try? await acquireLease(expiringAfter: 60, waitingAtMost: 1)
            #expect(lease != nil)
            await lease?.release()
        }
    }

#endif
