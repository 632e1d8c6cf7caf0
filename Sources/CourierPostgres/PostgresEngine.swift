// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    import CLibPQ
    import Courier
    import Foundation

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// Closes a descriptor (`close(2)`, which the engine's own `close()` hides).
    private func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    /// The rows a statement returned, as text (libpq's text format); `nil` is SQL NULL.
    typealias PostgresRows = [[String?]]

    /// What the listening connection reports, on the engine's thread.
    enum ListenerEvent: Sendable {
        /// `LISTEN` took effect on a new connection: notifications from now on arrive.
        case listening
        /// The listening connection broke: notifications may be missed until `.listening`.
        case stopped
        /// A notification's payload.
        case notification(String)
    }

    /// libpq driven through its asynchronous interface by one thread of the engine's own, so
    /// that no call ever blocks Swift's cooperative pool: connections are opened with
    /// `PQconnectStart`/`PQconnectPoll`, statements sent with `PQsendQueryParams` (always
    /// parameterized) and read with `PQconsumeInput`/`PQisBusy`/`PQgetResult`, and the thread
    /// waits in `poll(2)` on every connection's socket and a wake-up pipe.
    ///
    /// A small pool of connections is reused across calls (each connection is a server backend,
    /// a process: never one per call). A connection the server closed (a restart) is dropped
    /// when its socket says so, and the next call opens a new one; a read (or a fenced write)
    /// that fails on a reused connection is retried on another, past every connection a
    /// restart closed.
    /// A connection can be pinned (taken out of the pool) for a session-level advisory lock.
    /// One more connection, when asked for, `LISTEN`s on a channel and is reopened when it breaks.
    ///
    /// `@unchecked Sendable`: the mutable fields below `lock` (`inbox`, `stopped`) are only
    /// touched holding it; every other mutable field belongs to the engine's thread alone.
    final class PostgresEngine: @unchecked Sendable {
        let conninfo: String
        let maxConnections: Int
        let connectTimeout: TimeInterval

        private let lock = NSLock()
        private var inbox: [Command] = []  // guarded by lock
        private var stopped = false  // guarded by lock
        private let wakeRead: Int32
        private let wakeWrite: Int32

        // The engine thread's own state.
        private var connections: [Connection] = []
        private var waiting: [Job] = []
        private var nextID = 1
        private var listener: (channel: String, handler: @Sendable (ListenerEvent) -> Void)?
        private var listenerRetryAt: ContinuousClock.Instant?
        private var listenerBackoff: Duration = .milliseconds(50)

        /// - Throws: ``PostgresStoreError`` (`.systemResources`) when the engine's wake-up pipe
        ///   cannot be made (the process is out of file descriptors): a typed error, not a crash.
        init(conninfo: String, maxConnections: Int, connectTimeout: TimeInterval) throws(PostgresStoreError) {
            self.conninfo = conninfo
            self.maxConnections = max(1, maxConnections)
            self.connectTimeout = connectTimeout
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) != 0 {
                let code = errno
                throw PostgresStoreError(
                    kind: .systemResources,
                    reason:
                        "could not create the engine's wake-up pipe: \(String(cString: strerror(code))) (errno \(code))",
                    connection: conninfo)
            }
            wakeRead = fds[0]
            wakeWrite = fds[1]
            _ = fcntl(wakeRead, F_SETFL, fcntl(wakeRead, F_GETFL) | O_NONBLOCK)
            _ = fcntl(wakeWrite, F_SETFL, fcntl(wakeWrite, F_GETFL) | O_NONBLOCK)
            let thread = Thread { [self] in run() }
            thread.name = "Courier PostgreSQL"
            thread.start()
        }

        // MARK: Calls from any thread

        /// Runs `sql` with `parameters` on a pooled connection (or on `pinned`).
        func query(
            _ sql: String, _ parameters: [String?], on pinned: PinnedConnection? = nil, retryable: Bool = false
        ) async throws(PostgresStoreError) -> PostgresRows {
            let result: Result<PostgresRows, PostgresStoreError> = await withCheckedContinuation { continuation in
                let job = Job(
                    sql: sql, parameters: parameters, pinned: pinned?.id, retryable: retryable,
                    complete: { continuation.resume(returning: $0) })
                submit(.query(job))
            }
            return try result.get()
        }

        /// Runs `sql` on a pooled connection and blocks the calling thread until it is done: for
        /// ``PostgresTokenStore/load()`` and ``PostgresTokenStore/save(_:)``, which are synchronous.
        /// It waits on the engine's thread alone, never on a task.
        func blockingQuery(_ sql: String, _ parameters: [String?]) throws(PostgresStoreError) -> PostgresRows {
            let done = DispatchSemaphore(value: 0)
            let box = ResultBox()
            submit(
                .query(
                    Job(
                        sql: sql, parameters: parameters, pinned: nil, retryable: false,
                        complete: { result in
                            box.set(result)
                            done.signal()
                        })))
            done.wait()
            return try box.get()
        }

        /// A connection of its own, out of the pool until ``unpin(_:reuse:)``.
        func pin() async throws(PostgresStoreError) -> PinnedConnection {
            let result: Result<Int, PostgresStoreError> = await withCheckedContinuation { continuation in
                submit(.pin { continuation.resume(returning: $0) })
            }
            return PinnedConnection(id: try result.get())
        }

        /// Gives a pinned connection back: to the pool when `reuse`, closed otherwise.
        func unpin(_ connection: PinnedConnection, reuse: Bool) {
            submit(.unpin(connection.id, reuse: reuse))
        }

        /// Keeps one connection listening on `channel`, reopened when it breaks.
        func listen(on channel: String, handler: @escaping @Sendable (ListenerEvent) -> Void) {
            submit(.listen(channel, handler))
        }

        /// Closes every connection and ends the thread; calls in flight fail with `.shutDown`.
        func shutdown() {
            submit(.shutdown {})
        }

        /// The same, returning once the connections are closed (at once when the engine was
        /// shut down before).
        func shutdownAndWait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                submit(.shutdown { continuation.resume() })
            }
        }

        private func submit(_ command: Command) {
            let accepted = lock.withLock { () -> Bool in
                if stopped { return false }
                inbox.append(command)
                return true
            }
            if accepted {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            } else {
                command.fail(error(.shutDown, "the store was shut down"))
            }
        }

        private func error(_ kind: PostgresStoreError.Kind, _ reason: String, sqlState: String? = nil)
            -> PostgresStoreError
        {
            PostgresStoreError(kind: kind, reason: reason, sqlState: sqlState, connection: conninfo)
        }

        // MARK: The engine's thread

        private func run() {
            while true {
                let commands = lock.withLock { () -> [Command] in
                    defer { inbox.removeAll() }
                    return inbox
                }
                for (index, command) in commands.enumerated() {
                    if case .shutdown(let closed) = command {
                        close()
                        let failure = error(.shutDown, "the store was shut down")
                        for later in commands[(index + 1)...] { later.fail(failure) }
                        closed()
                        return
                    }
                    handle(command)
                }
                dispatch()
                waitForEvents()
            }
        }

        private func handle(_ command: Command) {
            switch command {
            case .query(let job):
                if let id = job.pinned {
                    guard let connection = connections.first(where: { $0.id == id }) else {
                        job.complete(.failure(error(.connectionLost, "the pinned connection is closed")))
                        return
                    }
                    connection.queue.append(job)
                } else {
                    waiting.append(job)
                }
            case .pin(let complete):
                if let idle = connections.first(where: { $0.role == .pool && $0.isIdle }) {
                    idle.role = .pinned
                    complete(.success(idle.id))
                } else {
                    switch open(role: .pinned) {
                    case .success(let connection): connection.onReady = complete
                    case .failure(let failure): complete(.failure(failure))
                    }
                }
            case .unpin(let id, let reuse):
                guard let index = connections.firstIndex(where: { $0.id == id }) else { return }
                let connection = connections[index]
                let poolSize = connections.count(where: { $0.role == .pool })
                if reuse, connection.isIdle, poolSize < maxConnections {
                    connection.role = .pool
                } else {
                    drop(connection, reason: "the pinned connection was given up")
                }
            case .listen(let channel, let handler):
                listener = (channel, handler)
                listenerRetryAt = .now
            case .shutdown:
                break
            }
        }

        /// Gives waiting jobs to idle pooled connections, opens connections while the pool is
        /// below its size, starts queued statements, and reopens the listener when it is due.
        private func dispatch() {
            if let retry = listenerRetryAt, retry <= .now, !connections.contains(where: { $0.role == .listener }) {
                listenerRetryAt = nil
                switch open(role: .listener) {
                case .success(let connection):
                    if let (channel, _) = listener {
                        connection.queue.append(
                            Job(
                                sql: "LISTEN \(Self.quotedIdentifier(channel))", parameters: [], pinned: nil,
                                retryable: false,
                                complete: { [weak self] result in self?.listenerStarted(result) }))
                    }
                case .failure:
                    scheduleListenerRetry()
                }
            }
            while let job = waiting.first {
                if let idle = connections.first(where: { $0.role == .pool && $0.isIdle && $0.queue.isEmpty }) {
                    waiting.removeFirst()
                    idle.queue.append(job)
                } else if connections.count(where: { $0.role == .pool }) < maxConnections {
                    switch open(role: .pool) {
                    case .success(let connection):
                        waiting.removeFirst()
                        connection.queue.append(job)
                    case .failure(let failure):
                        // libpq gave up before the first poll (a malformed connection string, a
                        // Unix socket nobody listens on): the jobs waiting for a connection fail
                        // now, and the next call tries again.
                        let failed = waiting
                        waiting.removeAll()
                        for job in failed { job.complete(.failure(failure)) }
                    }
                } else {
                    break
                }
            }
            for connection in connections where connection.isIdle && !connection.queue.isEmpty {
                start(connection.queue.removeFirst(), on: connection)
            }
        }

        private func listenerStarted(_ result: Result<PostgresRows, PostgresStoreError>) {
            switch result {
            case .success:
                listenerBackoff = .milliseconds(50)
                listener?.handler(.listening)
            case .failure:
                if let connection = connections.first(where: { $0.role == .listener }), connection.isIdle {
                    drop(connection, reason: "LISTEN failed")
                }
            }
        }

        /// Starts a new connection, or says why libpq gave up on it before the first poll: a
        /// malformed connection string, or a server that refused at once (a Unix socket whose
        /// server is down fails inside `PQconnectStart`, where TCP fails later, in a poll). A
        /// connection that could not be started is never added to ``connections``.
        private func open(role: Connection.Role) -> Result<Connection, PostgresStoreError> {
            guard let pg = PQconnectStart(conninfo) else {
                return .failure(error(.connectionFailed, "libpq could not allocate a connection"))
            }
            if PQstatus(pg) == CONNECTION_BAD {
                let failure = error(.connectionFailed, Self.message(pg))
                PQfinish(pg)
                return .failure(failure)
            }
            let connection = Connection(id: nextID, role: role)
            nextID += 1
            connection.pg = pg
            connection.deadline = .now + .nanoseconds(Int64(clamping: Delay.nanoseconds(connectTimeout)))
            _ = PQsetnonblocking(pg, 1)
            // The server's notices (such as "relation already exists, skipping") are not errors:
            // libpq would print them on standard error.
            _ = PQsetNoticeProcessor(pg, { _, _ in }, nil)
            connection.state = .connecting(wantsWrite: true)
            connections.append(connection)
            return .success(connection)
        }

        private func start(_ job: Job, on connection: Connection) {
            guard let pg = connection.pg else { return }
            let copies = job.parameters.map { $0.map { strdup($0) } ?? nil }
            defer { copies.forEach { free($0) } }
            let values = copies.map { UnsafePointer<CChar>($0) }
            let sent = values.withUnsafeBufferPointer { buffer in
                PQsendQueryParams(pg, job.sql, Int32(values.count), nil, buffer.baseAddress, nil, nil, 0)
            }
            guard sent == 1 else {
                // Nothing left this process: safe to try again on a new connection.
                let reason = Self.message(pg)
                if connection.role == .pool, job.retries <= maxConnections {
                    var again = job
                    again.retries += 1
                    waiting.insert(again, at: 0)
                    drop(connection, reason: reason)
                } else {
                    job.complete(.failure(error(.connectionLost, reason)))
                    drop(connection, reason: reason)
                }
                return
            }
            connection.state = .busy(job, rows: [], failure: nil)
            flush(connection)
        }

        private func flush(_ connection: Connection) {
            guard let pg = connection.pg, case .busy = connection.state else { return }
            let flushed = PQflush(pg)
            if flushed < 0 {
                broke(connection)
            } else {
                connection.wantsWrite = flushed == 1
            }
        }

        private func waitForEvents() {
            var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            var owners: [Connection?] = [nil]
            var timeout = Duration.seconds(1)
            let now = ContinuousClock.now
            var socketless: [Connection] = []
            for connection in connections {
                guard let pg = connection.pg else { continue }
                let socket = PQsocket(pg)
                guard socket >= 0 else {
                    // Between two addresses of a connection attempt libpq may hold no socket:
                    // polled again at once rather than left waiting for an event that cannot come.
                    if case .connecting = connection.state {
                        socketless.append(connection)
                        timeout = .zero
                    }
                    continue
                }
                var events = Int16(POLLIN)
                switch connection.state {
                case .connecting(let wantsWrite):
                    events = Int16(wantsWrite ? POLLOUT : POLLIN)
                    timeout = min(timeout, max(.zero, connection.deadline - now))
                case .busy:
                    if connection.wantsWrite { events |= Int16(POLLOUT) }
                case .idle, .closed:
                    break
                }
                descriptors.append(pollfd(fd: socket, events: events, revents: 0))
                owners.append(connection)
            }
            if let retry = listenerRetryAt { timeout = min(timeout, max(.zero, retry - now)) }
            let milliseconds = Int32(
                timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&descriptors, nfds_t(descriptors.count), max(0, milliseconds))
            if ready < 0 { return }
            if descriptors[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &buffer, buffer.count) > 0 {}
            }
            for connection in socketless where connections.contains(where: { $0 === connection }) {
                advanceConnect(connection)
            }
            for (index, owner) in owners.enumerated() {
                guard let connection = owner, connections.contains(where: { $0 === connection }) else { continue }
                let revents = descriptors[index].revents
                if case .connecting = connection.state {
                    if revents != 0 {
                        advanceConnect(connection)
                    } else if connection.deadline <= .now {
                        fail(
                            connection,
                            error(
                                .connectionFailed, "no connection within \(connectTimeout) seconds (connect time-out)"))
                    }
                    continue
                }
                guard revents != 0 else { continue }
                if revents & Int16(POLLOUT) != 0 { flush(connection) }
                if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { receive(connection) }
            }
        }

        private func advanceConnect(_ connection: Connection) {
            guard let pg = connection.pg else { return }
            switch PQconnectPoll(pg) {
            case PGRES_POLLING_OK:
                connection.state = .idle
                connection.onReady?(.success(connection.id))
                connection.onReady = nil
            case PGRES_POLLING_READING:
                connection.state = .connecting(wantsWrite: false)
            case PGRES_POLLING_WRITING:
                connection.state = .connecting(wantsWrite: true)
            default:
                fail(connection, error(.connectionFailed, Self.message(pg)))
            }
        }

        /// Reads what arrived: results of the statement in flight, notifications, or the end of
        /// the connection.
        private func receive(_ connection: Connection) {
            guard let pg = connection.pg else { return }
            guard PQconsumeInput(pg) == 1 else {
                broke(connection)
                return
            }
            deliverNotifications(connection)
            guard case .busy(let job, var rows, var failure) = connection.state else {
                if PQstatus(pg) == CONNECTION_BAD { broke(connection) }
                return
            }
            while PQisBusy(pg) == 0 {
                guard let result = PQgetResult(pg) else {
                    connection.state = .idle
                    if let failure {
                        job.complete(.failure(failure))
                    } else {
                        job.complete(.success(rows))
                    }
                    return
                }
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                    for row in 0..<PQntuples(result) {
                        rows.append(
                            (0..<PQnfields(result)).map { column in
                                PQgetisnull(result, row, column) == 1
                                    ? nil : String(cString: PQgetvalue(result, row, column))
                            })
                    }
                default:
                    let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
                    let message = PQresultErrorMessage(result).map { String(cString: $0) } ?? "unknown error"
                    if failure == nil { failure = error(.statementFailed, message, sqlState: state) }
                }
                connection.state = .busy(job, rows: rows, failure: failure)
            }
        }

        private func deliverNotifications(_ connection: Connection) {
            guard let pg = connection.pg else { return }
            while let notice = PQnotifies(pg) {
                let payload = String(cString: notice.pointee.extra)
                PQfreemem(notice)
                if connection.role == .listener { listener?.handler(.notification(payload)) }
            }
        }

        /// The connection broke (the server closed it, or the network failed).
        private func broke(_ connection: Connection) {
            let reason = connection.pg.map { Self.message($0) } ?? "closed"
            if case .busy(let job, _, _) = connection.state {
                connection.state = .closed
                // A read (or a fenced write: a retry of one that took effect is refused) on a
                // connection the server had closed is tried again on another connection; any
                // other write's outcome is unknown and is reported.
                if job.retryable, job.retries <= maxConnections, connection.role == .pool {
                    var again = job
                    again.retries += 1
                    waiting.insert(again, at: 0)
                } else {
                    job.complete(.failure(error(.connectionLost, reason)))
                }
            }
            drop(connection, reason: reason)
        }

        private func fail(_ connection: Connection, _ failure: PostgresStoreError) {
            connection.onReady?(.failure(failure))
            connection.onReady = nil
            for job in connection.queue { job.complete(.failure(failure)) }
            connection.queue.removeAll()
            if connection.role == .pool {
                // The jobs waiting for a pooled connection would wait for this one: they fail too.
                for job in waiting { job.complete(.failure(failure)) }
                waiting.removeAll()
            }
            drop(connection, reason: failure.reason)
        }

        private func drop(_ connection: Connection, reason: String) {
            connections.removeAll { $0 === connection }
            let failure = error(.connectionLost, reason)
            if case .busy(let job, _, _) = connection.state { job.complete(.failure(failure)) }
            connection.state = .closed
            connection.onReady?(.failure(failure))
            connection.onReady = nil
            for job in connection.queue {
                if job.pinned == nil {
                    waiting.insert(job, at: 0)
                } else {
                    job.complete(.failure(failure))
                }
            }
            connection.queue.removeAll()
            if let pg = connection.pg { PQfinish(pg) }
            connection.pg = nil
            if connection.role == .listener, let listener {
                listener.handler(.stopped)
                scheduleListenerRetry()
            }
        }

        /// Reopens the listening connection after a back-off that doubles up to 2 seconds.
        private func scheduleListenerRetry() {
            guard listener != nil else { return }
            listenerRetryAt = .now + listenerBackoff
            listenerBackoff = min(listenerBackoff * 2, .seconds(2))
        }

        private func close() {
            lock.withLock { stopped = true }
            let failure = error(.shutDown, "the store was shut down")
            let pending = lock.withLock { () -> [Command] in
                defer { inbox.removeAll() }
                return inbox
            }
            for command in pending { command.fail(failure) }
            for job in waiting { job.complete(.failure(failure)) }
            waiting.removeAll()
            listener = nil
            for connection in connections { drop(connection, reason: "the store was shut down") }
            closeDescriptor(wakeRead)
            closeDescriptor(wakeWrite)
        }

        static func message(_ pg: OpaquePointer) -> String {
            PQerrorMessage(pg).map { String(cString: $0) } ?? "unknown error"
        }

        /// `name` as a double-quoted SQL identifier.
        static func quotedIdentifier(_ name: String) -> String {
            "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }

        // MARK: Types

        /// One result handed from the engine's thread to a blocked caller.
        ///
        /// `@unchecked Sendable`: `result` is only touched holding `lock`.
        private final class ResultBox: @unchecked Sendable {
            private let lock = NSLock()
            private var result: Result<PostgresRows, PostgresStoreError>?  // guarded by lock

            func set(_ value: Result<PostgresRows, PostgresStoreError>) { lock.withLock { result = value } }

            func get() throws(PostgresStoreError) -> PostgresRows {
                let value = lock.withLock { result }
                switch value {
                case .success(let rows): return rows
                case .failure(let error): throw error
                case nil: return []
                }
            }
        }

        /// A connection taken out of the pool.
        struct PinnedConnection: Sendable, Hashable {
            let id: Int
        }

        struct Job: Sendable {
            let sql: String
            let parameters: [String?]
            let pinned: Int?
            let retryable: Bool
            let complete: @Sendable (Result<PostgresRows, PostgresStoreError>) -> Void
            /// Tried again on another connection this many times: at most once per pooled
            /// connection and once more, so that after a server restart a job gets past every
            /// connection the restart closed.
            var retries = 0
        }

        enum Command: Sendable {
            case query(Job)
            case pin(@Sendable (Result<Int, PostgresStoreError>) -> Void)
            case unpin(Int, reuse: Bool)
            case listen(String, @Sendable (ListenerEvent) -> Void)
            /// Ends the engine; the closure runs once every connection is closed.
            case shutdown(@Sendable () -> Void)

            func fail(_ error: PostgresStoreError) {
                switch self {
                case .query(let job): job.complete(.failure(error))
                case .pin(let complete): complete(.failure(error))
                case .shutdown(let closed): closed()
                case .unpin, .listen: break
                }
            }
        }

        /// One libpq connection; touched only on the engine's thread.
        final class Connection {
            enum Role { case pool, pinned, listener }
            enum State {
                case connecting(wantsWrite: Bool)
                case idle
                case busy(Job, rows: PostgresRows, failure: PostgresStoreError?)
                case closed
            }

            let id: Int
            var role: Role
            var pg: OpaquePointer?
            var state: State = .closed
            var wantsWrite = false
            var deadline: ContinuousClock.Instant = .now
            var queue: [Job] = []
            var onReady: (@Sendable (Result<Int, PostgresStoreError>) -> Void)?

            init(id: Int, role: Role) {
                self.id = id
                self.role = role
            }

            var isIdle: Bool {
                if case .idle = state { true } else { false }
            }
        }
    }

#endif
