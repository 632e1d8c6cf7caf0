import Foundation

/// One of the small Python servers beside `server.py` (`certificate_faults.py`,
/// `refusing_proxy.py`, `h2_goaway.py`), run for one test: it prints one `READY …` line once it
/// listens, and exits when its standard input closes, so it never outlives the test process.
public struct HelperServer: Sendable {
    /// The words of the script's `READY` line after `READY`.
    public let fields: [String]
    private let process: Process
    private let input: Pipe

    /// Why a helper server did not start.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// Runs `Tests/Server/<name>` with `arguments` and returns once it printed its `READY`
    /// line (the event: no clock is involved).
    public static func start(_ name: String, arguments: [String] = []) async throws -> HelperServer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = await firstLine(of: output.fileHandleForReading)
        let words = line?.split(separator: " ").map(String.init) ?? []
        guard words.first == "READY" else {
            try? input.fileHandleForWriting.close()
            if process.isRunning { process.terminate() }
            throw Failure(description: "\(name) did not start: it printed \(line.map { "\"\($0)\"" } ?? "nothing")")
        }
        return HelperServer(fields: Array(words.dropFirst()), process: process, input: input)
    }

    /// The value of the `name=value` field of the `READY` line.
    public func value(_ name: String) -> String? {
        fields.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    /// The port named `name` in the `READY` line (`name=<port>`).
    public func port(_ name: String) throws -> Int {
        guard let port = value(name).flatMap(Int.init) else {
            throw Failure(description: "no port \(name) in READY \(fields.joined(separator: " "))")
        }
        return port
    }

    /// Ends the server: it exits when its input closes. Does not wait for it.
    public func stop() {
        try? input.fileHandleForWriting.close()
    }

    /// The first line `handle` gives (`nil` at end-of-file), read on a thread of its own, off
    /// the cooperative pool; the pipe is drained afterwards so the script never blocks.
    private static func firstLine(of handle: FileHandle) async -> String? {
        await withCheckedContinuation { continuation in
            Thread {
                var bytes = Data()
                var resumed = false
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    guard !resumed else { continue }
                    bytes.append(chunk)
                    if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                        resumed = true
                        continuation.resume(returning: String(decoding: bytes[..<newline], as: UTF8.self))
                    }
                }
                if !resumed {
                    continuation.resume(returning: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
                }
            }.start()
        }
    }
}
