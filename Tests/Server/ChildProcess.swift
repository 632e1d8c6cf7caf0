import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One running `CourierCrossProcessChild`, whose standard output arrives as lines, as the
/// child writes them. Shared by the cross-process suites of IntegrationTests and the fleet test
/// of CourierPostgresTests.
///
/// `@unchecked Sendable`: `process` and `input` are only touched holding `lock`.
public final class ChildProcess: @unchecked Sendable {
    /// The lines the child writes, until it exits.
    public let lines: AsyncStream<String>
    /// The child's process id.
    public let pid: Int32
    /// The process and its standard input; the process object must live until the child is
    /// reaped.
    private let lock = NSLock()
    private let process: Process
    private let input: FileHandle

    /// Starts the child with `arguments`.
    public init(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        pid = process.processIdentifier
        self.process = process
        self.input = input.fileHandleForWriting
        lines = PipeReader.lines(of: output.fileHandleForReading, name: "ChildProcess \(pid)")
    }

    /// Writes a line to the child's standard input.
    public func send(_ line: String) {
        lock.withLock { try? input.write(contentsOf: Data((line + "\n").utf8)) }
    }

    /// `kill -9`.
    public func kill() {
        _ = systemKill(pid, SIGKILL)
    }

    /// Sends `signal` (`SIGSTOP`, `SIGCONT`).
    public func signal(_ signal: Int32) {
        _ = systemKill(pid, signal)
    }

    /// Kills the child if it still runs and closes its input (cleanup after a failed test).
    public func stop() {
        lock.withLock {
            if process.isRunning { _ = systemKill(pid, SIGKILL) }
            try? input.close()
        }
    }

    private func systemKill(_ pid: Int32, _ signal: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.kill(pid, signal)
        #else
            Darwin.kill(pid, signal)
        #endif
    }

    /// `CourierCrossProcessChild`, built beside the test bundle by `swift build --build-tests`
    /// (or the path in `COURIER_CROSSPROCESS_CHILD`).
    public static func executable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["COURIER_CROSSPROCESS_CHILD"] {
            return URL(fileURLWithPath: path)
        }
        let name = "CourierCrossProcessChild"
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        // On Linux the tests are an executable beside it; on macOS, inside an .xctest bundle.
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw ChildMissing(description: "\(name) was not found beside the tests; run `swift build --build-tests`")
    }

    /// The child executable was not built.
    public struct ChildMissing: Error, CustomStringConvertible {
        /// What is missing and how to build it.
        public let description: String
    }
}

/// What a child's `DONE` (or `CHECK`) line reports.
public struct ChildReport: Equatable, Sendable {
    /// The line's `name=number` fields (`true`/`false` as 1/0).
    public var values: [String: Int] = [:]
    /// The whole line.
    public var text = ""

    /// The report in `line`, if it starts with `prefix` and a space.
    public init?(_ line: String, prefix: String) {
        guard line.hasPrefix(prefix + " ") else { return nil }
        text = line
        for field in line.dropFirst(prefix.count + 1).split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
            if parts.count == 2, parts[1] == "true" { values[String(parts[0])] = 1 }
            if parts.count == 2, parts[1] == "false" { values[String(parts[0])] = 0 }
        }
    }

    /// The field's value, or -1 when the line has none.
    public subscript(_ key: String) -> Int { values[key] ?? -1 }
}
