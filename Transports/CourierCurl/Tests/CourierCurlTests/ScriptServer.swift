// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Foundation

/// A Python script of this folder, run as a server for one test: it prints `READY …` once it
/// listens and exits when its input closes.
struct ScriptServer: Sendable {
    /// The words of the script's `READY` line.
    let readyLine: [Substring]
    private let process: Process
    private let input: Pipe

    static func start(_ name: String, arguments: [String] = []) async throws -> ScriptServer {
        try await start(
            script: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(name),
            arguments: arguments)
    }

    /// Runs the Python script at `script` with `arguments`, until its `READY` line.
    static func start(script: URL, arguments: [String] = []) async throws -> ScriptServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let fields = try await readLine(output.fileHandleForReading).split(separator: " ")
        guard fields.first == "READY" else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile)
        }
        return ScriptServer(readyLine: fields, process: process, input: input)
    }

    /// The first line `handle` gives, read off the cooperative threads.
    private static func readLine(_ handle: FileHandle) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                var bytes = Data()
                while !bytes.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    bytes.append(chunk)
                }
                let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init)
                continuation.resume(with: line.map { .success($0) } ?? .failure(CocoaError(.fileReadUnknown)))
            }.start()
        }
    }

    /// Ends the server (it exits when its input closes).
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

#endif
