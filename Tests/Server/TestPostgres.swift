import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A throw-away PostgreSQL server for one test or benchmark: `initdb` in a temporary folder,
/// `pg_ctl start` on a free loopback port (as the `postgres` user when run as root: the server
/// refuses to run as root), and `pg_ctl stop` and the folder removed at the end.
///
/// Shared by CourierPostgresTests and the benchmark's fleet_storm scenario; it needs no libpq
/// (only PostgreSQL's programs, at run time), so it builds without the PostgreSQLStore trait.
///
/// The folder (data and socket) is made where the `postgres` user can reach it: under the
/// temporary directory when every folder above it lets others through, else under `/tmp`,
/// else `/var/tmp`; it is handed to `postgres` and closed to everyone else (0700).
///
/// Uses PostgreSQL's own programs from `COURIER_POSTGRES_BIN`, else the newest
/// `/usr/lib/postgresql/*/bin` (Debian's `postgresql` package), else `PATH`.
public final class TestPostgres: Sendable {
    /// The server's folder: its data, its log and its socket.
    public let folder: URL
    /// The loopback port it listens on.
    public let port: Int
    /// Where PostgreSQL's programs are (`nil`: on `PATH`).
    public let binaries: URL?

    /// The connection string for the server's `postgres` database, as the `postgres` user.
    public var connection: String { "host=127.0.0.1 port=\(port) user=postgres dbname=postgres connect_timeout=5" }

    /// Runs `body` with a started server and stops it afterwards, whatever `body` does.
    public static func with<T>(_ body: (TestPostgres) async throws -> T) async throws -> T {
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

    /// Starts a server; stop it with ``stop()`` (or use ``with(_:)``).
    public init() async throws {
        folder = Self.reachableParent().appendingPathComponent("courier-postgres-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if Self.asRoot {
            try await Self.exec("/bin/chown", ["postgres:postgres", folder.path])
        }
        binaries = Self.findBinaries()
        port = try Self.freePort()
        try await run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"])
        try await start()
    }

    /// Starts the server (and waits until it accepts connections, at most 60 s).
    public func start() async throws {
        try await run(
            "pg_ctl",
            [
                "-D", data, "-l", log, "-w", "-t", "60", "-o",
                "-p \(port) -c listen_addresses=127.0.0.1 -k \(folder.path) -c fsync=off -c max_connections=300",
                "start",
            ])
    }

    /// `pg_ctl restart -m fast`: every connection is closed by the server.
    public func restart() async throws {
        try await run(
            "pg_ctl",
            [
                "-D", data, "-l", log, "-w", "-t", "60", "-m", "fast", "-o",
                "-p \(port) -c listen_addresses=127.0.0.1 -k \(folder.path) -c fsync=off -c max_connections=300",
                "restart",
            ])
    }

    /// Stops the server (immediately) and removes its folder.
    public func stop() async {
        try? await run("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs one of PostgreSQL's programs, as `postgres` when the tests run as root.
    public func run(_ program: String, _ arguments: [String]) async throws {
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

    /// A folder the `postgres` user can reach (every folder from `/` down lets others through):
    /// the temporary directory (`TMPDIR`) when it can, else `/tmp`, else `/var/tmp`. Short, too:
    /// the server's socket path must fit in 107 bytes.
    static func reachableParent() -> URL {
        let candidates = [FileManager.default.temporaryDirectory.path, "/tmp", "/var/tmp"]
        for candidate in candidates where candidate.utf8.count < 60 && (!asRoot || othersCanEnter(candidate)) {
            return URL(fileURLWithPath: candidate)
        }
        return URL(fileURLWithPath: "/tmp")
    }

    private static func othersCanEnter(_ path: String) -> Bool {
        var current = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        while true {
            var info = stat()
            guard stat(current.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return false }
            // Sticky, world-writable folders such as /tmp let others through as well.
            guard info.st_mode & S_IXOTH != 0 else { return false }
            if current.path == "/" { return true }
            current.deleteLastPathComponent()
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
    public static func freePort() throws -> Int {
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

/// The throw-away server could not be started.
public struct TestPostgresError: Error, CustomStringConvertible {
    /// What failed, with the program's output.
    public let description: String

    /// An error that says `description`.
    public init(description: String) {
        self.description = description
    }
}
