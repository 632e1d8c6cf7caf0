// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    @testable import CourierPostgres
    import CourierTestServer
    import Courier
    import CourierTesting
    import Foundation
    import Testing

    /// Issue 32, items 2, 3 and 5: what the database does to a fleet's sessions when its table
    /// is emptied, when a lease holder's connections are cut, and with keys holding NUL.
    @Suite("The store under database faults", .serialized, .timeLimit(.minutes(20)))
    struct StoreFaultTests {
        /// A token server: each refresh token is good once; one presented twice is reuse.
        final class TokenServer: Sendable {
            let now = LockIsolated(Date(timeIntervalSince1970: 1_000_000))
            let state = LockIsolated((issued: 0, current: "refresh-0", presented: [String](), reused: 0))
            /// Closed: the first refresh waits at the token endpoint until it opens.
            let endpoint = Gate()
            let entered = Gate()

            func refresh(_ token: OAuthToken) async throws -> OAuthToken {
                let first = state.withValue { state -> Bool in
                    state.presented.append(token.refreshToken ?? "")
                    if token.refreshToken != state.current { state.reused += 1 }
                    return state.presented.count == 1
                }
                if first {
                    entered.open()
                    try await endpoint.wait()
                }
                let issued = state.withValue { state -> Int in
                    state.issued += 1
                    state.current = "refresh-\(state.issued)"
                    return state.issued
                }
                return Self.token(issued, expiresAt: now.value.addingTimeInterval(60))
            }

            static func token(_ number: Int, expiresAt: Date) -> OAuthToken {
                OAuthToken(accessToken: "access-\(number)", refreshToken: "refresh-\(number)", expiresAt: expiresAt)
            }

            func session(_ database: PostgresDatabase) -> AuthSession {
                AuthSession(
                    store: PostgresTokenStore(database: database, key: "k"), refresh: { try await self.refresh($0) },
                    now: { self.now.value }, refreshWindow: nil)
            }
        }

        @Test("a TRUNCATE then a NOTIFY signs nobody out: the token is kept, the fault reported, the row written again")
        func truncatedTable() async throws {
            try await TestPostgres.with { server in
                let tokens = TokenServer()
                tokens.endpoint.open()
                let operatorDatabase = try PostgresDatabase(connection: server.connection)
                let (databaseA, databaseB) = (
                    try PostgresDatabase(connection: server.connection),
                    try PostgresDatabase(connection: server.connection)
                )
                let (a, b) = (tokens.session(databaseA), tokens.session(databaseB))
                let first = TokenServer.token(0, expiresAt: tokens.now.value.addingTimeInterval(60))
                try await a.signIn(first)
                #expect(try await b.validToken() == first)
                let events = b.events
                let faults = databaseB.faults()
                await databaseB.waitUntil { databaseB.isListening }

                _ = try await operatorDatabase.query("TRUNCATE courier_tokens", [])
                _ = try await operatorDatabase.query("SELECT pg_notify('courier_tokens', 'k')", [])
                await databaseB.waitUntil { databaseB.cachedGeneration(of: "k") == nil }
                // Still signed in, with the same token, in both processes.
                #expect(try await b.validToken() == first)
                #expect(try await a.validToken() == first)
                #expect(await !b.needsSignIn)
                var reported = faults.makeAsyncIterator()
                let fault = await reported.next()
                #expect(fault?.kind == .invalidData)
                #expect(fault?.reason.contains("gone") == true, "\(String(describing: fault))")

                // The next renewal writes the row again; the other process adopts it.
                tokens.now.withValue { $0 = $0.addingTimeInterval(120) }
                let renewed = try await a.validToken()
                #expect(renewed.accessToken == "access-1")
                let row = try await operatorDatabase.query(
                    "SELECT position('access-1' in token::text) > 0 FROM courier_tokens WHERE key = 'k'", [])
                #expect(row.first?.first == "t", "\(row)")
                await databaseB.waitUntil { databaseB.cachedGeneration(of: "k") == nil }
                #expect(try await b.validToken() == renewed)
                #expect(tokens.state.value.reused == 0)
                #expect(tokens.state.value.issued == 1)

                // The documented sign-out by an operator does sign both out.
                _ = try await operatorDatabase.query(
                    """
                    UPDATE courier_tokens SET token = NULL, change = 4, generation = generation + 1, updated_at = now()
                    WHERE key = 'k'
                    """, [])
                _ = try await operatorDatabase.query("SELECT pg_notify('courier_tokens', 'k')", [])
                await databaseB.waitUntil { databaseB.cachedGeneration(of: "k") == nil }
                #expect(await b.token == nil)
                // B's events: the adoption of the renewal, then the operator's sign-out; no
                // sign-out for the TRUNCATE.
                var seen: [AuthEvent] = []
                for await event in events {
                    seen.append(event)
                    if event == .signedOut { break }
                }
                #expect(seen == [.refreshed, .signedOut])
            }
        }

        @Test("a row emptied or deleted by hand is a fault too; a session's own sign-out still signs the others out")
        func deletedRow() async throws {
            try await TestPostgres.with { server in
                let (a, b) = try PostgresTokenStoreTests.twoProcesses(server)
                let token = PostgresTokenStoreTests.token("1")
                #expect(try await a.write(token, change: .signedIn, ifGeneration: nil) == 1)
                #expect(try await b.read().token == token)
                _ = try await a.database.query("UPDATE courier_tokens SET token = NULL, change = NULL", [])
                #expect(try await b.read() == StoredToken(token: token, generation: 1, change: .signedIn))
                _ = try await a.database.query("DELETE FROM courier_tokens", [])
                #expect(try await b.read() == StoredToken(token: token, generation: 1, change: .signedIn))
                #expect(try await b.currentGeneration() == 1)
                // The lease can be taken on the row made again, and the renewal's fenced write
                // from the generation the session knew is taken.
                let lease = try await b.acquireLease(expiringAfter: 60, waitingAtMost: 5)
                let renewed = PostgresTokenStoreTests.token("2")
                let written = try await b.write(renewed, change: .refreshed, ifGeneration: 1)
                #expect(written == 2)
                await lease.release()
                #expect(try await a.read() == StoredToken(token: renewed, generation: 2, change: .refreshed))
                // A fenced write from a stale generation is still refused once the row holds a write.
                #expect(try await a.write(token, change: .refreshed, ifGeneration: 1) == nil)
                // Courier's own sign-out is recorded (a tombstone), and read as one.
                #expect(try await a.write(nil, change: .signedOut, ifGeneration: 2) == 3)
                #expect(try await b.read() == StoredToken(token: nil, generation: 3, change: .signedOut))
            }
        }

        @Test(
            "a lease holder's connections cut while it waits for the token endpoint: nobody else presents its refresh token"
        )
        func holderConnectionsCut() async throws {
            try await TestPostgres.with { server in
                let tokens = TokenServer()
                let observer = try PostgresDatabase(connection: server.connection)
                let holderDatabase = try PostgresDatabase(connection: server.connection + " application_name=holder")
                let otherDatabase = try PostgresDatabase(connection: server.connection)
                let (holder, other) = (tokens.session(holderDatabase), tokens.session(otherDatabase))
                try await holder.signIn(TokenServer.token(0, expiresAt: tokens.now.value.addingTimeInterval(60)))
                _ = try await other.validToken()
                tokens.now.withValue { $0 = $0.addingTimeInterval(120) }
                let holding = Task { try await holder.validToken() }
                try await tokens.entered.wait()
                // The holder is at the token endpoint with refresh-0: every connection it has
                // (the lease's, the pool's, the listener's) is cut.
                let cut = try await observer.query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'holder'", [])
                #expect(cut.count >= 2)
                let before = otherDatabase.statementCount
                let waiting = Task { try await other.validToken() }
                // The other process has tried for the lease twice (its try at once, and the
                // first try of its wait) before the holder's answer comes.
                await otherDatabase.waitUntil { otherDatabase.statementCount >= before + 6 }
                #expect(tokens.state.value.presented == ["refresh-0"])
                tokens.endpoint.open()
                let renewed = try await holding.value
                #expect(renewed.accessToken == "access-1")
                #expect(try await waiting.value == renewed)
                #expect(tokens.state.value.presented == ["refresh-0"])
                #expect(tokens.state.value.reused == 0)
            }
        }

        @Test("keys holding NUL are refused with a typed error, never cut into another key's row")
        func nulKeys() async throws {
            try await TestPostgres.with { server in
                let database = try PostgresDatabase(connection: server.connection)
                let plain = PostgresTokenCoordinator(database: database, key: "tenant")
                let token = PostgresTokenStoreTests.token("1")
                _ = try await plain.write(token, change: .signedIn, ifGeneration: nil)
                for key in ["tenant\u{0}evil", "\u{0}", "tenant\u{0}"] {
                    let coordinator = PostgresTokenCoordinator(database: database, key: key)
                    let error = await #expect(throws: PostgresStoreError.self) { _ = try await coordinator.read() }
                    #expect(error?.kind == .invalidName)
                    await #expect(throws: PostgresStoreError.self) { _ = try await coordinator.currentGeneration() }
                    await #expect(throws: PostgresStoreError.self) {
                        _ = try await coordinator.write(nil, change: .signedOut, ifGeneration: nil)
                    }
                    await #expect(throws: PostgresStoreError.self) {
                        _ = try await coordinator.acquireLease(expiringAfter: 60, waitingAtMost: 0)
                    }
                    let store = PostgresTokenStore(database: database, key: key)
                    #expect(throws: PostgresStoreError.self) { _ = try store.load() }
                    #expect(throws: PostgresStoreError.self) { try store.save(nil) }
                }
                #expect(try await plain.read().token == token)
                let rows = try await database.query("SELECT count(*) FROM courier_tokens", [])
                #expect(rows.first?.first == "1")
            }
        }
    }

#endif
