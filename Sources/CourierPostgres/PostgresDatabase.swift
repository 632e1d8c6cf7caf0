// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    import Courier
    import Foundation

    /// A PostgreSQL database that holds tokens for many keys, and this process's connections to
    /// it: a small pool reused across calls, driven by a thread of its own (libpq's asynchronous
    /// interface, so no call blocks Swift's cooperative threads), and one connection that
    /// `LISTEN`s for other processes' writes.
    ///
    /// Create one per database and process and share it between the stores of its keys
    /// (``PostgresTokenStore/init(database:key:)``). The table is created on first use
    /// (`CREATE TABLE IF NOT EXISTS`; the same schema is in `courier_tokens.sql` for teams that
    /// run migrations):
    ///
    /// ```sql
    /// CREATE TABLE IF NOT EXISTS courier_tokens (
    ///     key           text PRIMARY KEY,    -- which credential (an account, a tenant)
    ///     token         jsonb,               -- the OAuthToken; NULL when signed out
    ///     change        smallint,            -- what the last write was (TokenChange)
    ///     generation    bigint NOT NULL DEFAULT 0,  -- +1 on every write: fences late writers
    ///     lease_owner   uuid,                -- the session renewing the token, if any
    ///     lease_expires timestamptz,         -- on the database's clock
    ///     lease_backed  boolean NOT NULL DEFAULT false,  -- its holder also holds the advisory lock
    ///     lease_taken   timestamptz,         -- when, on the database's clock (before a restart?)
    ///     updated_at    timestamptz NOT NULL DEFAULT now()
    /// );
    /// ```
    ///
    /// The connection string is libpq's (`host=db.internal dbname=app user=courier
    /// sslmode=verify-full` or `postgresql://…`), passed through as it is: its TLS settings,
    /// time-outs and the environment's `PG*` variables apply. No error or description shows its
    /// password.
    public final class PostgresDatabase: Sendable {
        /// The connection string as libpq reads it, in key/value form, with every password
        /// shown as `***` (or a placeholder when libpq cannot read it).
        public let connectionDescription: String
        /// The table's name (schema-qualified or not).
        public let table: String
        /// The `LISTEN`/`NOTIFY` channel on which writes are announced.
        public let channel: String

        let engine: PostgresEngine
        let quotedTable: String
        let faultReports = PostgresStoreFaults()
        private let state: State

        /// Connects lazily (the first call opens the first connection).
        ///
        /// - Parameters:
        ///   - connection: libpq's connection string (key/value or URI form).
        ///   - table: the table holding the tokens: an identifier, optionally schema-qualified.
        ///   - channel: the notification channel (an identifier); the table's name by default.
        ///   - maximumConnections: how many pooled connections this process opens at most, 4 by
        ///     default (each lease holds one more for as long as it is held, and one more
        ///     listens).
        ///   - connectTimeout: how long to wait for a new connection before failing, in seconds
        ///     (10 by default; NaN, negative or infinite values are clamped).
        /// - Throws: ``PostgresStoreError`` (`.invalidName`) when `table` or `channel` is not an
        ///   identifier; (`.systemResources`) when the process is out of file descriptors.
        public init(
            connection: String, table: String = "courier_tokens", channel: String? = nil,
            maximumConnections: Int = 4, connectTimeout: TimeInterval = 10
        ) throws(PostgresStoreError) {
            let channel = channel ?? table.replacingOccurrences(of: ".", with: "_")
            let identifier = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/
            let parts = table.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy({ $0.wholeMatch(of: identifier) != nil }),
                channel.wholeMatch(of: identifier) != nil
            else {
                throw PostgresStoreError(
                    kind: .invalidName, reason: "table \(table), channel \(channel)",
                    connection: connection)
            }
            self.connectionDescription = ConnectionString.describing(connection)
            self.table = table
            self.channel = channel
            self.quotedTable = parts.map { PostgresEngine.quotedIdentifier(String($0)) }.joined(separator: ".")
            self.engine = try PostgresEngine(
                conninfo: connection, maxConnections: maximumConnections, connectTimeout: connectTimeout)
            let state = State()
            self.state = state
            engine.listen(on: channel) { event in state.heard(event) }
        }

        deinit {
            engine.shutdown()
        }

        /// Closes the database: ends its thread and closes its connections (the pool, the
        /// listening connection, and the connections of leases still held, which frees their
        /// advisory locks: another process takes such a lease over at once). Returns once they
        /// are closed. Calls in flight and every call afterwards fail with
        /// ``PostgresStoreError/Kind/shutDown``; closing again does nothing.
        ///
        /// Call it when the process stops, say on `SIGTERM`, after its sessions' last requests:
        ///
        /// ```swift
        /// signal(SIGTERM, SIG_IGN)
        /// let terminate = DispatchSource.makeSignalSource(signal: SIGTERM)
        /// terminate.setEventHandler { Task { await database.close(); exit(0) } }
        /// terminate.resume()
        /// ```
        ///
        /// Without it, the connections close when the last reference to the database goes
        /// away, or when the process exits (the server then frees the advisory locks too).
        public func close() async {
            await engine.shutdownAndWait()
            faultReports.finish()
        }

        /// The faults of the table that the sessions on this database work around rather than
        /// fail on, from now on: a key's row that is gone (the table was truncated, the row
        /// deleted) or emptied by hand while this process holds a token for it
        /// (``PostgresStoreError/Kind/invalidData``). A missing row is not a sign-out: the
        /// sessions keep their token and write the row again with their next renewal. Log
        /// them, or count them for an alert; the stream ends when the database is closed.
        ///
        /// ```swift
        /// Task { for await fault in database.faults() { logger.error("\(fault)") } }
        /// ```
        public func faults() -> AsyncStream<PostgresStoreError> {
            faultReports.subscribe()
        }

        // MARK: Schema

        /// The statement that creates the table (what `courier_tokens.sql` holds).
        var createTableSQL: String {
            """
            CREATE TABLE IF NOT EXISTS \(quotedTable) (
                key text PRIMARY KEY,
                token jsonb,
                change smallint,
                generation bigint NOT NULL DEFAULT 0,
                lease_owner uuid,
                lease_expires timestamptz,
                lease_backed boolean NOT NULL DEFAULT false,
                lease_taken timestamptz,
                updated_at timestamptz NOT NULL DEFAULT now()
            )
            """
        }

        /// Whether the table has the columns this version uses, as the statement that asks:
        /// a table created by Courier 1.5.0 lacks `lease_taken` (added in 1.6.0).
        var missingColumnSQL: String {
            "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'lease_taken' AND NOT attisdropped"
        }

        /// The upgrade of a 1.5.0 table (also in `courier_tokens.sql`).
        var upgradeSQL: String {
            "ALTER TABLE \(quotedTable) ADD COLUMN IF NOT EXISTS lease_taken timestamptz"
        }

        /// Refuses a key that libpq cannot pass whole: its parameters are C strings, so a key
        /// holding NUL would be cut there and share a row with another key.
        func check(key: String) throws(PostgresStoreError) {
            guard key.utf8.contains(0) else { return }
            throw PostgresStoreError(
                kind: .invalidName,
                reason: "a key contains a NUL character, which PostgreSQL's text cannot hold (it would be cut "
                    + "there and share another key's row)",
                connection: connectionDescription)
        }

        /// Creates the table (once per process) and the key's row (once per key).
        func prepare(key: String) async throws(PostgresStoreError) {
            try check(key: key)
            if state.isPrepared(key) { return }
            if !state.isPrepared(nil) {
                do {
                    _ = try await query(createTableSQL, [])
                } catch  where ["23505", "42P07", "42710"].contains(error.sqlState ?? "") {
                    // Another call or process created it at the same moment (CREATE TABLE IF NOT EXISTS
                    // is not atomic against a concurrent one): it exists now.
                }
                // A table an earlier version created: its new column is added once (the ALTER
                // needs the table's owner, so it is only sent when the column is missing).
                if try await query(missingColumnSQL, [quotedTable]).isEmpty {
                    do {
                        _ = try await query(upgradeSQL, [])
                    } catch {
                        throw Self.upgradeFailure(error)
                    }
                }
                state.setPrepared(nil)
            }
            _ = try await query(
                "INSERT INTO \(quotedTable) (key) VALUES ($1) ON CONFLICT (key) DO NOTHING", [key])
            state.setPrepared(key)
        }

        /// The same, blocking the calling thread (for the synchronous `TokenStore` calls).
        func prepareBlocking(key: String) throws(PostgresStoreError) {
            try check(key: key)
            if state.isPrepared(key) { return }
            if !state.isPrepared(nil) {
                do {
                    _ = try engine.blockingQuery(createTableSQL, [])
                } catch  where ["23505", "42P07", "42710"].contains(error.sqlState ?? "") {}
                if try engine.blockingQuery(missingColumnSQL, [quotedTable]).isEmpty {
                    do {
                        _ = try engine.blockingQuery(upgradeSQL, [])
                    } catch {
                        throw Self.upgradeFailure(error)
                    }
                }
                state.setPrepared(nil)
            }
            _ = try engine.blockingQuery(
                "INSERT INTO \(quotedTable) (key) VALUES ($1) ON CONFLICT (key) DO NOTHING", [key])
            state.setPrepared(key)
        }

        /// An upgrade that failed, with the migration to run: a role without ownership of the
        /// table cannot add the column itself.
        private static func upgradeFailure(_ error: PostgresStoreError) -> PostgresStoreError {
            PostgresStoreError(
                kind: error.kind,
                reason: "the token table lacks the lease_taken column Courier 1.6.0 uses, and adding it failed ("
                    + error.reason
                    + "); run the ALTER TABLE at the end of courier_tokens.sql as the table's owner",
                sqlState: error.sqlState, connection: error.connection)
        }

        // MARK: Statements

        /// Runs one parameterized statement on a pooled connection.
        func query(
            _ sql: String, _ parameters: [String?], on pinned: PostgresEngine.PinnedConnection? = nil,
            retryable: Bool = false
        ) async throws(PostgresStoreError) -> PostgresRows {
            state.countStatement()
            return try await engine.query(sql, parameters, on: pinned, retryable: retryable)
        }

        /// How many statements this process sent (what the generation cache saves).
        var statementCount: Int { state.statements }

        // MARK: Generation cache

        /// The cached generation of `key`, if nothing was written to it since it was read.
        func cachedGeneration(of key: String) -> UInt64? { state.cached(key) }

        /// A ticket taken before reading `key`'s generation, to cache what the read returns.
        func cacheTicket(for key: String) -> CacheTicket? { state.ticket(key) }

        /// Caches `generation` unless a write was announced (or the listener broke) since `ticket`.
        func cache(_ generation: UInt64, for key: String, ticket: CacheTicket?) {
            if let ticket { state.store(generation, key: key, ticket: ticket) }
        }

        /// Whether the listening connection is listening (so the generation cache is in use).
        var isListening: Bool { state.isListening }

        /// Returns once `condition` holds, checking it now, after each thing the listening
        /// connection hears (it started or stopped listening, a notification arrived) and after
        /// each statement this process sends; returns at once when the task is cancelled. What
        /// waits for the listener's state, or for a session's next statement, waits for these
        /// events, never for a clock.
        func waitUntil(_ condition: () -> Bool) async {
            let events = state.subscribe()
            if condition() { return }
            for await _ in events where condition() { return }
        }

        /// From now on, what the listening connection hears about `key` (a notification for it,
        /// or the listener starting or stopping), for a session waiting for the key's lease.
        func announcements(of key: String) -> Announcements {
            let announcements = Announcements()
            let id = state.watch(key: key, announcements)
            announcements.unwatch = { [weak state] in state?.unwatch(id) }
            return announcements
        }

        /// What the listening connection hears about one key: a count of announcements not yet
        /// waited for, and the one waiter.
        ///
        /// `@unchecked Sendable`: every mutable field is touched only holding `lock`.
        final class Announcements: @unchecked Sendable {
            private let lock = NSLock()
            private var pending = 0  // guarded by lock
            private var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?  // guarded by lock
            private var nextWaiter: UInt64 = 0  // guarded by lock
            fileprivate var unwatch: (@Sendable () -> Void)?  // set once, before any other call

            deinit { unwatch?() }

            /// One more announcement: wakes the waiter, or is kept for the next wait.
            fileprivate func announce() {
                let woken: CheckedContinuation<Void, Never>? = lock.withLock {
                    if let waiter {
                        self.waiter = nil
                        return waiter.continuation
                    }
                    pending += 1
                    return nil
                }
                woken?.resume()
            }

            /// Returns at the next announcement (at once if one arrived since the last call), or
            /// after `limit`, or when the task is cancelled.
            func next(orAfter limit: Duration) async {
                let id: UInt64 = lock.withLock {
                    nextWaiter += 1
                    return nextWaiter
                }
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: limit)
                    self?.wake(id)
                }
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = lock.withLock {
                            if pending > 0 {
                                pending = 0
                                return true
                            }
                            waiter = (id, continuation)
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    wake(id)
                }
                timer.cancel()
            }

            /// Resumes waiter `id` if it still waits (its time ran out, or its task was cancelled).
            private func wake(_ id: UInt64) {
                let woken: CheckedContinuation<Void, Never>? = lock.withLock {
                    guard let waiter, waiter.id == id else { return nil }
                    self.waiter = nil
                    return waiter.continuation
                }
                woken?.resume()
            }
        }

        /// Where a cached read started: the listener's epoch and the key's invalidation count.
        struct CacheTicket: Sendable, Equatable {
            let epoch: UInt64
            let invalidations: UInt64
        }

        /// The process's knowledge of the database: the listener's state and the generation
        /// cache.
        ///
        /// `@unchecked Sendable`: every mutable field is touched only holding `lock`.
        private final class State: @unchecked Sendable {
            private let lock = NSLock()
            private var epoch: UInt64 = 0  // guarded by lock; +1 per LISTEN that took effect
            private var listening = false  // guarded by lock
            private var generations: [String: (generation: UInt64, epoch: UInt64)] = [:]  // guarded by lock
            private var invalidations: [String: UInt64] = [:]  // guarded by lock
            private var prepared: Set<String> = []  // guarded by lock; "" stands for the table
            private var statementTotal = 0  // guarded by lock
            private var subscribers: [UInt64: AsyncStream<Void>.Continuation] = [:]  // guarded by lock
            private var nextSubscriber: UInt64 = 0  // guarded by lock
            private var watchers: [UInt64: (key: String, announcements: Announcements)] = [:]  // guarded by lock

            /// Tells `announcements` of each notification for `key` and each change of the
            /// listener's state, until ``unwatch(_:)``.
            func watch(key: String, _ announcements: Announcements) -> UInt64 {
                lock.withLock {
                    nextSubscriber += 1
                    watchers[nextSubscriber] = (key, announcements)
                    return nextSubscriber
                }
            }

            func unwatch(_ id: UInt64) {
                _ = lock.withLock { watchers.removeValue(forKey: id) }
            }

            /// A stream that gets an element after each event the listener hears, from now on.
            func subscribe() -> AsyncStream<Void> {
                let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                let id = lock.withLock {
                    nextSubscriber += 1
                    subscribers[nextSubscriber] = continuation
                    return nextSubscriber
                }
                continuation.onTermination = { [weak self] _ in
                    self?.lock.withLock { _ = self?.subscribers.removeValue(forKey: id) }
                }
                return stream
            }

            func heard(_ event: ListenerEvent) {
                defer {
                    let (told, watching) = lock.withLock { (Array(subscribers.values), Array(watchers.values)) }
                    for subscriber in told { subscriber.yield() }
                    for watcher in watching {
                        if case .notification(let key) = event, key != watcher.key { continue }
                        watcher.announcements.announce()
                    }
                }
                lock.withLock {
                    switch event {
                    case .listening:
                        epoch += 1
                        listening = true
                        generations.removeAll()
                    case .stopped:
                        listening = false
                        generations.removeAll()
                    case .notification(let key):
                        generations[key] = nil
                        invalidations[key, default: 0] += 1
                    }
                }
            }

            var isListening: Bool { lock.withLock { listening } }

            func cached(_ key: String) -> UInt64? {
                lock.withLock {
                    guard listening, let entry = generations[key], entry.epoch == epoch else { return nil }
                    return entry.generation
                }
            }

            func ticket(_ key: String) -> CacheTicket? {
                lock.withLock {
                    listening ? CacheTicket(epoch: epoch, invalidations: invalidations[key, default: 0]) : nil
                }
            }

            func store(_ generation: UInt64, key: String, ticket: CacheTicket) {
                lock.withLock {
                    guard listening, ticket == CacheTicket(epoch: epoch, invalidations: invalidations[key, default: 0])
                    else { return }
                    generations[key] = (generation, epoch)
                }
            }

            func isPrepared(_ key: String?) -> Bool { lock.withLock { prepared.contains(key.map { "k:" + $0 } ?? "") } }

            func setPrepared(_ key: String?) { _ = lock.withLock { prepared.insert(key.map { "k:" + $0 } ?? "") } }

            /// Counts a statement, and tells the subscribers (``waitUntil(_:)``) when there are any:
            /// with none, the count costs what it did.
            func countStatement() {
                let told = lock.withLock { () -> [AsyncStream<Void>.Continuation] in
                    statementTotal += 1
                    return subscribers.isEmpty ? [] : Array(subscribers.values)
                }
                for subscriber in told { subscriber.yield() }
            }

            var statements: Int { lock.withLock { statementTotal } }
        }
    }

#endif
