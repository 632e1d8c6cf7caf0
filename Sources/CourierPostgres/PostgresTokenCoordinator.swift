// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    import Courier
    import Foundation

    /// How the sessions of a fleet that share one key of a ``PostgresDatabase`` take turns:
    /// the coordinator of ``PostgresTokenStore``.
    ///
    /// - **Generation.** Every write adds one to the row's `generation` and announces the key
    ///   with `NOTIFY`; each process keeps the generation it read until a notification for the
    ///   key arrives, so ``currentGeneration()`` costs no round trip while nothing changed
    ///   (and one while the listening connection is down).
    /// - **Fenced write.** `… WHERE key = $1 AND generation = $2`: a writer whose generation is
    ///   stale (another session wrote, or took its expired lease over) writes nothing.
    /// - **A lost row.** A row that is gone (`TRUNCATE`, `DELETE`) or holds no write of
    ///   Courier's while this coordinator knows a token is a fault, reported on
    ///   ``PostgresDatabase/faults()``, not a sign-out: reads return what the coordinator knows,
    ///   and the next renewal's write makes the row again.
    /// - **Lease.** A session-level advisory lock on the key (`pg_try_advisory_lock`), held on a
    ///   connection of the lease's own (the server frees it when that connection ends); and
    ///   the lease columns of the row, with an expiry measured on the database's clock, for a
    ///   holder that hangs: past its expiry another session takes the lease over (and adds one
    ///   to the generation, so the hung holder's late write is refused). ``PostgresTokenLease/isHeld()``
    ///   extends it while its holder lives. A lease whose advisory lock is gone is still taken
    ///   over only once it expires (or its holder releases it): the lock goes with its holder's
    ///   connection, and a connection is lost to a server restart, a pooler, a network blip or
    ///   `pg_terminate_backend` while its holder lives and may be presenting the refresh token;
    ///   the expiry outlasts the holder's refresh, so no other session presents that refresh
    ///   token meanwhile. (A holder that died holds its key up until then.)
    /// - **Waiting.** A session waiting for the lease tries again when the key is announced
    ///   (a write, a released lease), and at least every ``leaseRetryInterval`` (a holder that
    ///   died announces nothing; a lease that expires neither).
    public final class PostgresTokenCoordinator: TokenStoreCoordinator {
        /// The database.
        public let database: PostgresDatabase
        /// The key of the row this coordinator guards.
        public let key: String

        /// A coordinator for `key` in `database`.
        public convenience init(database: PostgresDatabase, key: String) {
            self.init(database: database, key: key, retryInterval: Self.leaseRetryInterval)
        }

        /// With another fallback interval than ``leaseRetryInterval`` (the tests make it so long
        /// that only an announcement can wake a waiting session).
        init(database: PostgresDatabase, key: String, retryInterval: Duration) {
            self.database = database
            self.key = key
            self.retryInterval = retryInterval
        }

        /// How long a waiting session waits at most for an announcement before it tries again.
        let retryInterval: Duration

        /// What this coordinator last read or wrote with a token in it, and whether the row's
        /// loss was reported since: a row that is gone (a `TRUNCATE`, a `DELETE`) or that holds
        /// no write of Courier's (token and change both NULL) is a fault of the store, not a
        /// sign-out (Courier's own sign-out writes `change` = signed out), so the sessions go on
        /// with what they had and the next renewal writes the row again.
        private let known = Locked<(stored: StoredToken?, reported: Bool)>((nil, false))

        private var table: String { database.quotedTable }

        /// How long a session waiting for the lease waits at most before it tries again when no
        /// announcement woke it: how soon it notices a holder that died (its advisory lock is
        /// gone, and nothing announced it) or a lease that expired.
        public static let leaseRetryInterval: Duration = .milliseconds(500)

        /// The generation of the stored token: from this process's cache while no write to the
        /// key was announced since it was read, else read from the database.
        ///
        /// - Throws: ``PostgresStoreError`` when the database cannot be reached.
        nonisolated(nonsending) public func currentGeneration() async throws -> UInt64? {
            if let cached = database.cachedGeneration(of: key) { return cached }
            let ticket = database.cacheTicket(for: key)
            try await database.prepare(key: key)
            let rows = try await database.query(
                "SELECT generation, token IS NULL AND change IS NULL FROM \(table) WHERE key = $1", [key],
                retryable: true)
            var generation = rows.first?.first.flatMap { $0.flatMap(UInt64.init) } ?? 0
            if rows.first?.last == "t" || rows.isEmpty, let remembered = await lost(missing: rows.isEmpty) {
                generation = remembered.generation
            }
            database.cache(generation, for: key, ticket: ticket)
            return generation
        }

        /// The stored token and the generation of the write that stored it.
        ///
        /// A row that is gone or holds no write of Courier's while this coordinator knows a
        /// token is a fault, reported on ``PostgresDatabase/faults()``: what it knows is
        /// returned (the sessions keep their token), and the row is made again.
        ///
        /// - Throws: ``PostgresStoreError`` when the database cannot be reached or the row does
        ///   not hold a token.
        nonisolated(nonsending) public func read() async throws -> StoredToken {
            let ticket = database.cacheTicket(for: key)
            try await database.prepare(key: key)
            let rows = try await database.query(
                "SELECT token::text, generation, change FROM \(table) WHERE key = $1", [key], retryable: true)
            let unwritten = rows.first.map { $0.count == 3 && $0[0] == nil && $0[2] == nil } ?? true
            if unwritten, let remembered = await lost(missing: rows.isEmpty) {
                database.cache(remembered.generation, for: key, ticket: ticket)
                return remembered
            }
            let stored = try decode(rows.first)
            remember(stored)
            database.cache(stored.generation, for: key, ticket: ticket)
            return stored
        }

        /// The row is gone (`missing`) or holds no write of Courier's: made again when gone (so
        /// that a lease can be taken on it), and, when this coordinator knows a token, reported
        /// once and that token returned.
        private func lost(missing: Bool) async -> StoredToken? {
            if missing {
                _ = try? await database.query(
                    "INSERT INTO \(table) (key) VALUES ($1) ON CONFLICT (key) DO NOTHING", [key])
            }
            let (remembered, report) = known.withValue { known -> (StoredToken?, Bool) in
                guard let stored = known.stored, stored.token != nil else { return (nil, false) }
                defer { known.reported = true }
                return (stored, !known.reported)
            }
            if report, let remembered {
                database.faultReports.report(
                    PostgresStoreError(
                        kind: .invalidData,
                        reason: "the row of key \(key) is "
                            + (missing
                                ? "gone (the table was truncated or the row deleted)" : "empty (written by hand)")
                            + ", though it held a token at generation \(remembered.generation): not a sign-out; "
                            + "the sessions keep their token and the next renewal writes the row again",
                        connection: database.connectionDescription))
            }
            return remembered
        }

        /// Keeps what was read or written, for a row lost later, unless it knows a later
        /// generation already (a read that was overtaken by a write): generations only grow.
        private func remember(_ stored: StoredToken) {
            known.withValue { known in
                if let previous = known.stored, previous.generation > stored.generation { return }
                known = (stored, false)
            }
        }

        /// Stores `token` (`nil`: signed out) if the row is still at generation `expected`
        /// (`nil`: whatever it is at), adds one to the generation and announces the key.
        ///
        /// - Returns: the new generation, or `nil` when the row was not at `expected`.
        /// - Throws: ``PostgresStoreError``; `.connectionLost` means the outcome is unknown
        ///   (reading tells: a retry with the same `expected` is refused if it took effect).
        nonisolated(nonsending) public func write(
            _ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?
        ) async throws -> UInt64? {
            try await database.prepare(key: key)
            let json = try token.map(Self.encode)
            // A row that is gone is made again. One that holds no write of Courier's at a
            // generation below the expected one was lost (made again, or emptied by hand: a
            // generation never goes down otherwise) and takes the write; its generation moves
            // past the expected one, so every process sees a change. A row never written is
            // fenced as any other (a late first write from a lease taken over is refused).
            let rows = try await database.query(
                """
                WITH written AS (
                    INSERT INTO \(table) AS stored (key, token, change, generation)
                    VALUES ($1, $2::jsonb, $3::smallint, COALESCE($5::bigint, 0) + 1)
                    ON CONFLICT (key) DO UPDATE SET token = EXCLUDED.token, change = EXCLUDED.change,
                        generation = GREATEST(stored.generation, COALESCE($5::bigint, 0)) + 1, updated_at = now()
                    WHERE $5::bigint IS NULL OR stored.generation = $5::bigint
                        OR (stored.token IS NULL AND stored.change IS NULL AND stored.generation < $5::bigint)
                    RETURNING generation
                )
                SELECT generation, pg_notify($4, $1) FROM written
                """,
                [key, json, String(change.rawValue), database.channel, expected.map(String.init)],
                // Retried on another connection when its own was closed (a restart): a retry of
                // a fenced write that took effect is refused, and reading tells.
                retryable: true)
            let written = rows.first?.first.flatMap { $0.flatMap(UInt64.init) }
            if let written {
                // This coordinator's own write is the newest it knows, whatever its generation
                // (a sign-in over a lost row starts the count again).
                known.withValue { $0 = (StoredToken(token: token, generation: written, change: change), false) }
            }
            return written
        }

        /// Takes the lease: the key's advisory lock on a connection of the lease's own, and the
        /// lease columns of the row (free, released, or expired on the database's clock; a
        /// holder whose connection died may still be at the token endpoint, so its lease is
        /// waited out).
        ///
        /// - Parameters:
        ///   - duration: how long the lease lasts unless ``PostgresTokenLease/isHeld()`` extends it.
        ///   - timeout: how long to wait for a lease another session holds.
        /// - Throws: `TokenLeaseTimeout`, `CancellationError`, or ``PostgresStoreError``.
        public func acquireLease(expiringAfter duration: TimeInterval, waitingAtMost timeout: TimeInterval)
            async throws -> any TokenLease
        {
            try await database.prepare(key: key)
            let started = ContinuousClock.now
            // Clamped as every seconds-to-nanoseconds conversion is: a NaN, negative, infinite
            // or huge value from the caller is 0 or 100 years, never a trap.
            let limit = Duration.nanoseconds(Int64(clamping: Delay.nanoseconds(timeout)))
            let duration = Double(Delay.nanoseconds(duration)) / 1e9
            let owner = UUID().uuidString.lowercased()
            let lockName = database.table + ":" + key
            // Subscribed before the first try: an announcement between a failed try and the wait
            // is not missed.
            let announcements = database.announcements(of: key)
            while true {
                try Task.checkCancellation()
                let connection = try await database.engine.pin()
                do {
                    let locked =
                        try await database.query(
                            "SELECT pg_try_advisory_lock(hashtextextended($1, 0))", [lockName], on: connection
                        ).first?.first == "t"
                    // Taken when free, expired, or held by a holder whose connection (and so its
                    // advisory lock) is gone. Taking over a holder adds one to the generation:
                    // its late write is refused.
                    // Taken only when free or expired on the database's clock: a holder whose
                    // advisory lock is gone may have lost only its connection (a pooler restart,
                    // a network blip, pg_terminate_backend, a server restart) while it waits for
                    // the token endpoint with the refresh token, so the lease's expiry, which
                    // outlasts the holder's refresh, stays the authority. A row that is gone is
                    // made again (then tried again at once).
                    let answer = try await database.query(
                        """
                        WITH before AS (SELECT generation AS old FROM \(table) WHERE key = $1),
                        taken AS (
                            UPDATE \(table) SET lease_owner = $2::uuid,
                                lease_expires = clock_timestamp() + $3::double precision * interval '1 second',
                                lease_backed = $4::boolean, lease_taken = clock_timestamp(),
                                generation = generation + CASE WHEN lease_owner IS NULL THEN 0 ELSE 1 END
                            WHERE key = $1 AND (lease_owner IS NULL OR lease_expires <= clock_timestamp())
                            RETURNING generation
                        ),
                        restored AS (
                            INSERT INTO \(table) (key) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM before)
                            ON CONFLICT (key) DO NOTHING RETURNING 1
                        ),
                        notified AS (
                            SELECT pg_notify($5, $1) FROM taken, before WHERE taken.generation <> before.old
                        )
                        SELECT (SELECT count(*) FROM taken), (SELECT count(*) FROM restored),
                            (SELECT count(*) FROM notified)
                        """, [key, owner, String(duration), locked ? "true" : "false", database.channel],
                        on: connection)
                    let taken = answer.first?.first == "1"
                    let restored = answer.first.map { $0.count > 1 && $0[1] == "1" } ?? false
                    if taken {
                        if locked {
                            return PostgresTokenLease(
                                coordinator: self, owner: owner, duration: duration, connection: connection,
                                lockName: lockName)
                        }
                        database.engine.unpin(connection, reuse: true)
                        return PostgresTokenLease(
                            coordinator: self, owner: owner, duration: duration, connection: nil, lockName: lockName)
                    }
                    if locked {
                        _ = try await database.query(
                            "SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockName], on: connection)
                    }
                    database.engine.unpin(connection, reuse: true)
                    if restored { continue }
                } catch {
                    database.engine.unpin(connection, reuse: false)
                    if error.kind == .connectionLost {
                        // The lease may have been taken (the answer was lost, say to a restart):
                        // freed, or the key would wait for it to expire.
                        await clearing(clearSQL, owner: owner)
                    }
                    throw error
                }
                let waited = started.duration(to: .now)
                guard waited < limit else { throw TokenLeaseTimeout(seconds: timeout) }
                await announcements.next(orAfter: min(retryInterval, limit - waited))
            }
        }

        /// Whether `owner` still holds the lease; extends it by `duration` when it does. Asked on
        /// the lease's own connection, or, when that connection is gone (a restart, a pooler, a
        /// network blip, `pg_terminate_backend`), on a pooled one: its advisory lock went with the
        /// connection, but nobody takes a lease over before it expires, so the row says whether
        /// it is still this holder's.
        func holds(owner: String, duration: TimeInterval, on connection: PostgresEngine.PinnedConnection?) async
            -> Bool
        {
            let extend = """
                UPDATE \(table) SET lease_expires = clock_timestamp() + $3::double precision * interval '1 second'
                WHERE key = $1 AND lease_owner = $2::uuid RETURNING 1
                """
            do {
                let rows = try await database.query(extend, [key, owner, String(duration)], on: connection)
                return !rows.isEmpty
            } catch {
                guard connection != nil else { return false }
                let rows = try? await database.query(extend, [key, owner, String(duration)], retryable: true)
                return !(rows ?? []).isEmpty
            }
        }

        /// Frees the lease columns if `owner` still holds them, then the advisory lock.
        func release(owner: String, connection: PostgresEngine.PinnedConnection?, lockName: String) async {
            let clear = clearSQL
            guard let connection else {
                await clearing(clear, owner: owner)
                return
            }
            do {
                _ = try await database.query(clear, [key, owner, database.channel], on: connection)
                _ = try await database.query(
                    "SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockName], on: connection)
                database.engine.unpin(connection, reuse: true)
            } catch {
                // Closing the connection frees the advisory lock; a lease row left naming this
                // owner is backed by a lock nobody holds now, so the next session takes it.
                database.engine.unpin(connection, reuse: false)
                await clearing(clear, owner: owner)
            }
        }

        /// Frees the lease row if `$2` holds it, announced (`$3`), so that the sessions waiting
        /// for the lease try again at once.
        private var clearSQL: String {
            """
            WITH cleared AS (
                UPDATE \(table) SET lease_owner = NULL, lease_expires = NULL, lease_backed = false,
                    lease_taken = NULL
                WHERE key = $1 AND lease_owner = $2::uuid RETURNING 1
            )
            SELECT pg_notify($3, $1) FROM cleared
            """
        }

        /// Clears the lease row on a pooled connection. When the database cannot be reached (it
        /// is restarting), tries again in the background every ``leaseRetryInterval`` for as
        /// long as a lease may last (10 minutes): a lease taken before a restart is taken over
        /// only when it expires, so a clear that never arrives would hold the key's fleet up.
        private func clearing(_ clear: String, owner: String) async {
            let parameters = [key, owner, database.channel]
            if (try? await database.query(clear, parameters, retryable: true)) != nil { return }
            Task.detached { [weak database] in
                for _ in 0..<1200 {
                    guard (try? await Task.sleep(for: Self.leaseRetryInterval)) != nil, let database else { return }
                    do {
                        _ = try await database.query(clear, parameters, retryable: true)
                        return
                    } catch {
                        if (error as? PostgresStoreError)?.kind == .shutDown { return }
                    }
                }
            }
        }

        // MARK: Encoding

        static func encode(_ token: OAuthToken) throws(PostgresStoreError) -> String {
            do {
                return String(decoding: try JSONEncoder().encode(token), as: UTF8.self)
            } catch {
                throw PostgresStoreError(kind: .invalidData, reason: "the token could not be encoded", connection: "")
            }
        }

        private func decode(_ row: [String?]?) throws(PostgresStoreError) -> StoredToken {
            guard let row, row.count == 3 else { return StoredToken(token: nil, generation: 0) }
            let generation = row[1].flatMap(UInt64.init) ?? 0
            let change = row[2].flatMap(UInt8.init).flatMap(TokenChange.init(rawValue:))
            guard let json = row[0] else { return StoredToken(token: nil, generation: generation, change: change) }
            do {
                let token = try JSONDecoder().decode(OAuthToken.self, from: Data(json.utf8))
                return StoredToken(token: token, generation: generation, change: change)
            } catch {
                throw PostgresStoreError(
                    kind: .invalidData, reason: "the row of key \(key) does not hold a token",
                    connection: database.connectionDescription)
            }
        }
    }

    /// The lease of a ``PostgresTokenCoordinator``: the key's advisory lock on a connection of
    /// its own (when it could be had) and the row's lease columns. Released once: by its holder,
    /// or when it is dropped (then by closing its connection, which frees the advisory lock).
    public final class PostgresTokenLease: TokenLease {
        private let coordinator: PostgresTokenCoordinator
        private let owner: String
        private let duration: TimeInterval
        private let connection: PostgresEngine.PinnedConnection?
        private let lockName: String
        private let released = ReleaseFlag()

        init(
            coordinator: PostgresTokenCoordinator, owner: String, duration: TimeInterval,
            connection: PostgresEngine.PinnedConnection?, lockName: String
        ) {
            self.coordinator = coordinator
            self.owner = owner
            self.duration = duration
            self.connection = connection
            self.lockName = lockName
        }

        /// Gives the lease up, so the next session may take it. Releasing twice does nothing.
        nonisolated(nonsending) public func release() async {
            guard released.set() else { return }
            await coordinator.release(owner: owner, connection: connection, lockName: lockName)
        }

        /// Whether the lease is still this holder's (not released, not taken over after it
        /// expired); extends it by its duration, on the database's clock, when it is. A database
        /// that cannot be reached answers `false`: the refresh token stays home.
        nonisolated(nonsending) public func isHeld() async -> Bool {
            guard !released.isSet else { return false }
            return await coordinator.holds(owner: owner, duration: duration, on: connection)
        }

        deinit {
            if released.set(), let connection {
                // Closing the connection frees the advisory lock; the row's lease then names a
                // holder whose lock is gone, and the next session takes it over at once.
                coordinator.database.engine.unpin(connection, reuse: false)
            }
        }

        /// Set once.
        ///
        /// `@unchecked Sendable`: `value` is only touched holding `lock`.
        private final class ReleaseFlag: @unchecked Sendable {
            private let lock = NSLock()
            private var value = false  // guarded by lock

            /// Sets the flag; `true` for the call that set it first.
            func set() -> Bool {
                lock.withLock {
                    defer { value = true }
                    return !value
                }
            }

            var isSet: Bool { lock.withLock { value } }
        }
    }

#endif
