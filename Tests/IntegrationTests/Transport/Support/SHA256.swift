import Foundation

/// SHA-256 digests computed by `python3`'s `hashlib`, the same code the test server uses
/// for what it received. (CryptoKit is not on Linux, and a digest written in Swift takes
/// seconds per MiB in a debug build.) `python3` is already what the server needs.
enum SHA256 {
    private static let script = """
        import hashlib, sys
        digest = hashlib.sha256()
        source = open(sys.argv[1], "rb") if len(sys.argv) > 1 else sys.stdin.buffer
        for block in iter(lambda: source.read(1 << 20), b""):
            digest.update(block)
        print(digest.hexdigest())
        """

    /// The hex digest of `data`.
    static func hex(_ data: Data) async throws -> String {
        try await offThePool { try run(arguments: [], input: data) }
    }

    /// The hex digest of the file at `url`.
    static func hex(fileAt url: URL) async throws -> String {
        try await offThePool { try run(arguments: [url.path], input: nil) }
    }

    private static func run(arguments: [String], input: Data?) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardInput = standardInput
        try process.run()
        if let input {
            try standardInput.fileHandleForWriting.write(contentsOf: input)
        }
        try standardInput.fileHandleForWriting.close()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let digest = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, digest.count == 64 else {
            throw CocoaError(.fileReadUnknown)
        }
        return digest
    }
}
