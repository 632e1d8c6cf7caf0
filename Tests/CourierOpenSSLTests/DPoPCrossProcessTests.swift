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
    /// Runs the child (`ChildProcess`, shared with the other cross-process suites) with
    /// `arguments` until its `DONE` line, and returns that report.
    static func run(_ arguments: [String]) async throws -> ChildReport {
        let child = try ChildProcess(arguments)
        defer { child.stop() }
        var output: [String] = []
        for await line in child.lines {
            output.append(line)
            if let report = ChildReport(line, prefix: "DONE") { return report }
        }
        Issue.record("the child ended without a DONE line: \(output.joined(separator: "\n"))")
        throw CancellationError()
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
        let reports = try await withThrowingTaskGroup(of: ChildReport.self) { group in
            for _ in 0..<3 { group.addTask { try await Self.run(arguments) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for report in reports {
            #expect(report["ok"] > 0, "\(report.text)")
            #expect(report["auth"] == 0, "\(report.text)")
            #expect(report["other"] == 0, "\(report.text)")
            #expect(report["logouts"] == 0, "\(report.text)")
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
