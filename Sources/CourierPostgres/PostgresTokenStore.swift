// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    import Courier
    import Foundation

    /// A token store that any number of processes on any number of machines share through
    /// PostgreSQL: one row of a ``PostgresDatabase``'s table per key (an account, a tenant), so
    /// one table holds a service's many credentials, and refreshes are single-flight per key
    /// and independent across keys.
    ///
    /// ```swift
    /// let database = try PostgresDatabase(connection: "host=db.internal dbname=app user=courier sslmode=verify-full")
    /// let session = AuthSession(store: PostgresTokenStore(database: database, key: "tenant-42"), refresh: refresh)
    /// ```
    ///
    /// Its ``coordinator`` fences writes with the row's generation, leases renewals with an
    /// advisory lock that the server frees when its holder dies, and caches the generation until
    /// another process's `NOTIFY` says it changed (see ``PostgresTokenCoordinator``).
    public struct PostgresTokenStore: TokenStore {
        /// The database.
        public let database: PostgresDatabase
        /// The row's key.
        public let key: String
        /// How the sessions that share this key take turns.
        public let postgresCoordinator: PostgresTokenCoordinator

        /// ``postgresCoordinator``: a session reads and writes the token only through it.
        public var coordinator: (any TokenStoreCoordinator)? { postgresCoordinator }

        /// The store of `key` in `database` (share one database between the keys of a process).
        public init(database: PostgresDatabase, key: String) {
            self.database = database
            self.key = key
            self.postgresCoordinator = PostgresTokenCoordinator(database: database, key: key)
        }

        /// The store of `key` in the database at `connection` (libpq's connection string), with
        /// a ``PostgresDatabase`` of its own.
        ///
        /// - Throws: ``PostgresStoreError`` when `table` is not an SQL identifier.
        public init(connection: String, key: String, table: String = "courier_tokens") throws(PostgresStoreError) {
            self.init(database: try PostgresDatabase(connection: connection, table: table), key: key)
        }

        /// The stored token, or `nil`. Blocks the calling thread for a round trip (a session
        /// never calls it: it goes through ``coordinator``).
        ///
        /// - Throws: ``PostgresStoreError``.
        public func load() throws -> OAuthToken? {
            try database.prepareBlocking(key: key)
            let rows = try database.engine.blockingQuery(
                "SELECT token::text FROM \(database.quotedTable) WHERE key = $1", [key])
            guard let json = rows.first?.first ?? nil else { return nil }
            do {
                return try JSONDecoder().decode(OAuthToken.self, from: Data(json.utf8))
            } catch {
                throw PostgresStoreError(
                    kind: .invalidData, reason: "the row of key \(key) does not hold a token",
                    connection: database.connectionDescription)
            }
        }

        /// Stores `token` (`nil` deletes it) whatever is stored, as a sign-in or sign-out, and
        /// announces it. Blocks the calling thread for a round trip.
        ///
        /// - Throws: ``PostgresStoreError``.
        public func save(_ token: OAuthToken?) throws {
            try database.prepareBlocking(key: key)
            let json = try token.map(PostgresTokenCoordinator.encode)
            let change = (token == nil ? TokenChange.signedOut : .signedIn).rawValue
            _ = try database.engine.blockingQuery(
                """
                WITH written AS (
                    UPDATE \(database.quotedTable) SET token = $2::jsonb, change = $3::smallint,
                        generation = generation + 1, updated_at = now()
                    WHERE key = $1 RETURNING generation
                )
                SELECT generation, pg_notify($4, $1) FROM written
                """, [key, json, String(change), database.channel])
        }
    }

#endif
