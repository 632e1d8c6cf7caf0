// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    @testable import CourierPostgres
    import CourierTestServer
    import Courier
    import Foundation
    import Testing

    /// Issue 32, item 1: a connection libpq gives up on at once (a malformed string, a Unix
    /// socket whose server is down) is a typed error, never a crash, and the store recovers
    /// when the server is back; and issue 32, item 13: a database can be closed.
    @Suite("The engine under connection faults", .serialized, .timeLimit(.minutes(20)))
    struct EngineFaultTests {
        /// The forms of a Unix-socket connection string (the server's socket is in its folder).
        enum Form: String, CaseIterable, Sendable {
            case keyValue, uriQuery, uriEncodedHost
        }

        /// The server's Unix-socket connection string in `form`.
        static func socketConnection(_ server: TestPostgres, _ form: Form = .keyValue) -> String {
            let folder = server.folder.path
            switch form {
            case .keyValue:
                return "host=\(folder) port=\(server.port) user=postgres dbname=postgres connect_timeout=5"
            case .uriQuery:
                return "postgresql:///postgres?host=\(folder)&port=\(server.port)&user=postgres&connect_timeout=5"
            case .uriEncodedHost:
                let host = folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder
                return "postgresql://postgres@\(host):\(server.port)/postgres?connect_timeout=5"
            }
        }

        static func stopKeepingData(_ server: TestPostgres) async throws {
            try await server.run(
                "pg_ctl", ["-D", server.folder.appendingPathComponent("data").path, "-m", "fast", "-w", "stop"])
        }

        static let token = OAuthToken(accessToken: "access", refreshToken: "refresh", expiresAt: nil)

        /// Reads until a read succeeds (at most `limit` tries): the pool's connections that the
        /// server closed are dropped one by one, each failing at most one call.
        static func readWhenBack(_ coordinator: PostgresTokenCoordinator, limit: Int = 20) async throws -> StoredToken {
            for _ in 1..<limit {
                if let stored = try? await coordinator.read() { return stored }
            }
            return try await coordinator.read()
        }

        @Test(
            "over a Unix socket: a stopped server is a typed error, and the store works again once it is back",
            arguments: Form.allCases)
        func unixSocketStopped(_ form: Form) async throws {
            try await TestPostgres.with { server in
                let coordinator = PostgresTokenCoordinator(
                    database: try PostgresDatabase(connection: Self.socketConnection(server, form)), key: "k")
                #expect(try await coordinator.write(Self.token, change: .signedIn, ifGeneration: nil) == 1)
                try await Self.stopKeepingData(server)
                // Each call fails, typed: the pool's connections are gone, and new ones are
                // refused at once (inside PQconnectStart) by a socket nobody listens on.
                for _ in 0..<10 {
                    let error = await #expect(throws: PostgresStoreError.self) {
                        _ = try await coordinator.acquireLease(expiringAfter: 60, waitingAtMost: 0)
                    }
                    #expect([.connectionFailed, .connectionLost].contains(error?.kind))
                    await #expect(throws: PostgresStoreError.self) {
                        _ = try await coordinator.write(Self.token, change: .refreshed, ifGeneration: nil)
                    }
                }
                let failure = await #expect(throws: PostgresStoreError.self) { _ = try await coordinator.read() }
                #expect(failure?.kind == .connectionFailed)
                try await server.start()
                #expect(try await Self.readWhenBack(coordinator).token == Self.token)
                let lease = try await coordinator.acquireLease(expiringAfter: 60, waitingAtMost: 5)
                await lease.release()
                await coordinator.database.waitUntil { coordinator.database.isListening }
            }
        }

        @Test("over a Unix socket: pg_ctl restart -m fast during calls; calls fail typed or succeed, then all succeed")
        func unixSocketRestart() async throws {
            try await TestPostgres.with { server in
                let database = try PostgresDatabase(connection: Self.socketConnection(server))
                let coordinator = PostgresTokenCoordinator(database: database, key: "k")
                _ = try await coordinator.write(Self.token, change: .signedIn, ifGeneration: nil)
                await database.waitUntil { database.isListening }
                for _ in 0..<3 {
                    let calls = Task {
                        await withTaskGroup(of: Void.self) { group in
                            for _ in 0..<40 {
                                group.addTask {
                                    do {
                                        _ = try await coordinator.read()
                                    } catch let error as PostgresStoreError {
                                        #expect(
                                            [.connectionFailed, .connectionLost].contains(error.kind), "\(error)")
                                    } catch {
                                        Issue.record("not a PostgresStoreError: \(error)")
                                    }
                                }
                            }
                        }
                    }
                    try await server.restart()
                    await calls.value
                    #expect(try await Self.readWhenBack(coordinator).token == Self.token)
                }
                // The listener comes back too.
                await database.waitUntil { database.isListening }
            }
        }

        @Test(
            "over a Unix socket: a server down when the process starts; typed errors, then it works once started",
            arguments: Form.allCases)
        func unixSocketDownAtStart(_ form: Form) async throws {
            try await TestPostgres.with { server in
                try await Self.stopKeepingData(server)
                let database = try PostgresDatabase(connection: Self.socketConnection(server, form))
                let coordinator = PostgresTokenCoordinator(database: database, key: "k")
                let store = PostgresTokenStore(database: database, key: "k")
                for _ in 0..<5 {
                    let error = await #expect(throws: PostgresStoreError.self) { _ = try await coordinator.read() }
                    #expect(error?.kind == .connectionFailed)
                    #expect(throws: PostgresStoreError.self) { _ = try store.load() }
                }
                try await server.start()
                #expect(try await Self.readWhenBack(coordinator) == StoredToken(token: nil, generation: 0))
                await database.waitUntil { database.isListening }
            }
        }

        @Test(
            "a connection string libpq cannot read is a typed error on every call, never a crash",
            arguments: [
                "postgresql://u:p@[::1/postgres", "host='unclosed", "postgresql://u@db/app?nonsense=1",
                "host=127.0.0.1 port=notaport", "bogus_option=1",
            ])
        func malformed(_ connection: String) async throws {
            let database = try PostgresDatabase(connection: connection)
            let coordinator = PostgresTokenCoordinator(database: database, key: "k")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let error = await #expect(throws: PostgresStoreError.self) { _ = try await coordinator.read() }
                        #expect(error?.kind == .connectionFailed)
                    }
                }
                try await group.waitForAll()
            }
            await #expect(throws: PostgresStoreError.self) {
                _ = try await coordinator.acquireLease(expiringAfter: 60, waitingAtMost: 0)
            }
            #expect(throws: PostgresStoreError.self) { _ = try PostgresTokenStore(database: database, key: "k").load() }
        }

        @Test("close() ends the connections (the server sees them go) and every later call is a typed .shutDown")
        func close() async throws {
            try await TestPostgres.with { server in
                let observer = try PostgresDatabase(connection: server.connection)
                let database = try PostgresDatabase(connection: server.connection + " application_name=closing")
                let coordinator = PostgresTokenCoordinator(database: database, key: "k")
                _ = try await coordinator.write(Self.token, change: .signedIn, ifGeneration: nil)
                let lease = try await coordinator.acquireLease(expiringAfter: 600, waitingAtMost: 5)
                await database.waitUntil { database.isListening }
                let count = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'closing'"
                func backends() async throws -> Int {
                    Int(try await observer.query(count, []).first?.first.flatMap { $0 } ?? "") ?? -1
                }
                // The lease's (the pooled one the write used, pinned) and the listener's.
                #expect(try await backends() >= 2)
                await database.close()
                await database.close()
                let error = await #expect(throws: PostgresStoreError.self) { _ = try await coordinator.read() }
                #expect(error?.kind == .shutDown)
                #expect(throws: PostgresStoreError.self) {
                    _ = try PostgresTokenStore(database: database, key: "k").load()
                }
                await lease.release()
                // The server ends each backend when it reads the closed socket: asked until it
                // has (a bounded number of round trips, no clock).
                var remaining = try await backends()
                for _ in 0..<10_000 where remaining > 0 { remaining = try await backends() }
                #expect(remaining == 0)
                // The lease's advisory lock went with its connection.
                let locks = try await observer.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'", [])
                #expect(locks.first?.first == "0")
            }
        }
    }

#endif
