// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    import Foundation
    import Testing

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// A throw-away PostgreSQL server for one test: `initdb` in a temporary folder, `pg_ctl start`
    /// on a free loopback port (as the `postgres` user when the tests run as root: the server
    /// refuses to run as root), and `pg_ctl stop` and the folder removed at the end.
    ///
    /// Uses PostgreSQL's own programs from `COURIER_POSTGRES_BIN`, else the newest
    /// `/usr/lib/postgresql/*/bin` (Debian's `postgresql` package), else `PATH`.
    final class TestPostgres: Sendable {
        let folder: URL
        let port: Int
        let binaries: URL?

        /// The connection string for the server's `postgres` database, as the `postgres` user.
        var connection: String { "host=127.0.0.1 port=\(port) user=postgres dbname=postgres connect_timeout=5" }

        /// Runs `body` with a started server and stops it afterwards, whatever `body` does.
        static func with<T>(_ body: (TestPostgres) async throws -> T) async throws -> T {
            let server = try await TestPostgres()
            do {
                let result = try await body(server)
                await server.stop()
                return result
            } catch {
                try? await server.run("pg_ctl", ["-D", server.data, "-l", server.log, "stop", "-m", "immediate", "-w"])
                print("PostgreSQL log:\n" + ((try? String(contentsOfFile: server.log, encoding: .utf8)) ?? ""))
                await server.stop()
                throw error
            }
        }

        private var data: String { folder.appendingPathComponent("data").path }
        private var log: String { folder.appendingPathComponent("server.log").path }
        private static var asRoot: Bool { geteuid() == 0 }

        private init() async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "courier-postgres-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if Self.asRoot {
                try await Self.exec("/bin/chown", ["postgres:postgres", folder.path])
            }
            binaries = Self.findBinaries()
            port = try Self.freePort()
            try await run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"])
            try await start()
        }

        /// Starts the server (and waits until it accepts connections, at most 60 s).
        func start() async throws {
            try await run(
                "pg_ctl",
                [
                    "-D", data, "-l", log, "-w", "-t", "60", "-o",
                    "-p \(port) -c listen_addresses=127.0.0.1 -k \(folder.path) -c fsync=off -c max_connections=300",
                    "start",
                ])
        }

        /// `pg_ctl restart -m fast`: every connection is closed by the server.
        func restart() async throws {
            try await run(
                "pg_ctl",
                [
                    "-D", data, "-l", log, "-w", "-t", "60", "-m", "fast", "-o",
                    "-p \(port) -c listen_addresses=127.0.0.1 -k \(folder.path) -c fsync=off -c max_connections=300",
                    "restart",
                ])
        }

        /// Stops the server (immediately) and removes its folder.
        func stop() async {
            try? await run("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-m", "immediate", "stop"])
            try? FileManager.default.removeItem(at: folder)
        }

        /// Runs one of PostgreSQL's programs, as `postgres` when the tests run as root.
        func run(_ program: String, _ arguments: [String]) async throws {
            let path = binaries.map { $0.appendingPathComponent(program).path } ?? program
            if Self.asRoot {
                try await Self.exec("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments)
            } else {
                try await Self.exec("/usr/bin/env", [path] + arguments)
            }
        }

        /// Runs `executable` with `arguments` and waits for it on a thread of its own (off the
        /// test's executor; PostgreSQL's programs bound their own waits: `pg_ctl -t`).
        ///
        /// With `posix_spawn` and `waitpid`, not Foundation's `Process`: on Linux, `Process` learns
        /// that a child exited when a descriptor the child inherited closes, and the server that
        /// `pg_ctl start` leaves running inherits it too, so `pg_ctl` would never be seen to exit.
        private static func exec(_ executable: String, _ arguments: [String]) async throws {
            let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent(
                "courier-postgres-output-\(UUID().uuidString)"
            ).path
            defer { try? FileManager.default.removeItem(atPath: outputPath) }
            let status: Int32 = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    var actions = posix_spawn_file_actions_t()
                    posix_spawn_file_actions_init(&actions)
                    defer { posix_spawn_file_actions_destroy(&actions) }
                    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                    posix_spawn_file_actions_adddup2(&actions, 1, 2)
                    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
                    defer { argv.forEach { free($0) } }
                    var pid: pid_t = 0
                    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
                    guard spawned == 0 else {
                        continuation.resume(
                            throwing: TestPostgresError(description: "posix_spawn \(executable): \(spawned)"))
                        return
                    }
                    var status: Int32 = 0
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                    // WIFEXITED / WEXITSTATUS
                    let exited = status & 0x7f == 0
                    continuation.resume(returning: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f))
                }
            }
            if status != 0 {
                let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
                throw TestPostgresError(
                    description: "\(executable) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
            }
        }

        private static func findBinaries() -> URL? {
            if let configured = ProcessInfo.processInfo.environment["COURIER_POSTGRES_BIN"] {
                return URL(fileURLWithPath: configured)
            }
            let root = URL(fileURLWithPath: "/usr/lib/postgresql")
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
            let newest = versions.compactMap(Int.init).max()
            return newest.map { root.appendingPathComponent("\($0)/bin") }
        }

        /// A loopback port nobody listens on now (the kernel's choice for port 0).
        static func freePort() throws -> Int {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw TestPostgresError(description: "socket() failed") }
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
                }
            }
            guard bound else { throw TestPostgresError(description: "bind() failed") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }

    /// A loopback port whose connections the kernel completes but nobody ever answers: a
    /// database that hangs.
    final class SilentListener: Sendable {
        let port: Int
        private let descriptor: Int32

        init() throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw TestPostgresError(description: "socket() failed") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let descriptor = descriptor
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
                        && listen(descriptor, 64) == 0
                }
            }
            guard bound else { throw TestPostgresError(description: "bind() or listen() failed") }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        /// Stops listening.
        func close() {
            _ = Glibc.close(descriptor)
        }
    }

    /// The test server could not be started.
    struct TestPostgresError: Error, CustomStringConvertible {
        let description: String
    }

#endif
