// Compiled only with the OpenSSLSigning trait (see Package.swift); empty without it.
#if OpenSSLSigning

import Courier
import CourierOpenSSL
import CourierTestServer
import CourierTestServerTargets
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Processes on one token file share one DPoP key: the test signs in (a new key, stored with
/// the token), then `CourierCrossProcessChild --dpop` processes, which share nothing with it but
/// the file, send signed requests through several expiries of short tokens. A process that
/// signed with a key of its own would be refused by the server (`cnf.jkt`), and one that
/// presented a rotated refresh token again would trip its reuse detection.
@Suite("DPoP across processes on one token file", .timeLimit(.minutes(5)))
struct DPoPCrossProcessTests {
    /// Runs the child with `arguments` and returns its standard output once it exits.
    static func run(_ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = try childExecutable()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.yield() }
        try process.run()
        // Read to the end on a thread of its own (a blocking read), then wait for the exit.
        let text = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            Thread {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }.start()
        }
        for await _ in exited.stream { break }
        #expect(process.terminationStatus == 0, "child exited with \(process.terminationStatus): \(text)")
        return text
    }

    static func childExecutable() throws -> URL {
        let name = "CourierCrossProcessChild"
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
    }

    /// The `key=value` numbers of a child's `DONE` line.
    static func done(in output: String) throws -> [String: Int] {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("DONE ") })
        var values: [String: Int] = [:]
        for field in line.split(separator: " ").dropFirst() {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let number = Int(parts[1]) { values[String(parts[0])] = number }
        }
        return values
    }

    @Test("three processes sign with the key the sign-in stored and refresh it between them, never twice")
    func processesShareTheKey() async throws {
        let server = try await TestServer.start(tokenLifetime: 2)
        defer { server.stop() }
        var changes = TestServerConfig(reuseDetection: true)
        // One origin serves both with nonces of their own: every refresh meets the token endpoint's
        // nonce challenge, and the next API request the API's, in every process.
        changes.dpop = .init(nonceFromTokenEndpoint: true, nonceFromAPI: true)
        try await server.configure(changes)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dpop-cp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokenFile = folder.appendingPathComponent("token.json")

        let tokens = Provider<TokenEndpoint>()
        let base = server.baseURL
        let session = AuthSession(
            store: FileTokenStore(url: tokenFile), refresh: { $0 }, dpop: OpenSSLP256Key.Factory())
        let signedIn = try await session.signIn {
            try OAuthToken(
                response: await tokens.request(
                    TokenEndpoint(base: base, grant: .password(username: "u", password: "p"))))
        }
        #expect(signedIn.tokenType == "DPoP")

        let arguments = [
            "--server", base.absoluteString, "--token-file", tokenFile.path, "--dpop", "--go", "--duration", "4",
            "--workers", "3", "--interval", "0.02", "--leeway", "0.5",
        ]
        let outputs = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<3 { group.addTask { try await Self.run(arguments) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for output in outputs {
            let done = try Self.done(in: output)
            #expect((done["ok"] ?? 0) > 0, "\(output)")
            #expect(done["auth"] == 0, "\(output)")
            #expect(done["other"] == 0, "\(output)")
            #expect(done["logouts"] == 0, "\(output)")
        }
        let counters = try await server.counters()
        #expect(counters.refreshTokenReuses == 0)
        #expect(counters.dpopProofRejections == 0)
        #expect(counters.dpopBearerMisuses == 0)
        // Several expiries passed, and every token the server issued was bound.
        #expect(counters.refreshSuccesses >= 1)
        #expect(counters.dpopBoundIssued == 1 + counters.refreshSuccesses)
        let stored = try #require(try FileTokenStore(url: tokenFile).load())
        #expect(stored.dpopKey == signedIn.dpopKey)
    }
}

#endif
