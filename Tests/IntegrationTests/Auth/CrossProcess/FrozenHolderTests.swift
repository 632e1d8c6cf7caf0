import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A process stopped (SIGSTOP, as iOS freezes an extension) while it holds the lease, past
/// the lease, then continued: another process took the lease over and rotated the refresh
/// token meanwhile. The woken process must not send its stale refresh token (the server
/// would revoke the family); it adopts the newer token. Real processes, real signals; the
/// test waits for lines from the children, never on a clock.
@Suite("A lease holder that wakes up late", .serialized, .timeLimit(.minutes(20)))
struct FrozenHolderTests {
    @Test(
        "stopped past its lease and continued, the holder never sends its stale refresh token and adopts the newer one")
    func frozenHolder() async throws {
        let server = try await TestServer.start(tokenLifetime: 3600)
        defer { server.stop() }
        try await server.configure(.init(reuseDetection: true))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-frozen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokenFile = folder.appendingPathComponent("token.json")
        var token = try OAuthToken(tokenResponse: try await server.issueToken(lifetime: 3600), receivedAt: Date())
        // Expired by the clients' clocks: the first request refreshes.
        token.expiresAt = Date().addingTimeInterval(-60)
        try FileTokenStore(url: tokenFile).save(token)
        try await server.resetCounters()
        let common = ["--server", server.baseURL.absoluteString, "--token-file", tokenFile.path]

        // The holder's lease lasts abandonRefreshAfter + 30 s: 32 s.
        let holder = try ChildProcess(common + ["--mode", "frozen", "--refresh-timeout", "2", "--abandon-after", "2"])
        defer { holder.stop() }
        var holderLines: [String] = []
        for await line in holder.lines {
            holderLines.append(line)
            if line == "HOLDING" { break }
        }
        #expect(holderLines.last == "HOLDING", "\(holderLines)")
        holder.signal(SIGSTOP)

        // Another process needs a token: it waits for the stopped holder's lease to expire,
        // takes it over, and rotates the refresh token.
        let other = try ChildProcess(common + ["--mode", "check", "--refresh-timeout", "600"])
        defer { other.stop() }
        var check: ChildReport?
        for await line in other.lines {
            if let report = ChildReport(line, prefix: "CHECK") { check = report }
        }
        #expect(check?["ok"] == 1, "\(check?.text ?? "no report")")
        let rotated = try await server.counters()
        #expect(rotated.refreshGrants == 1)

        // Read as soon as it runs again: the request is then about to leave. Sent only now,
        // long after the stop took effect: sent at once, it could wake the holder in the moment
        // before the stop does, and its lease check pass while the lease was still its own.
        holder.send("SEND")
        holder.signal(SIGCONT)
        for await line in holder.lines { holderLines.append(line) }
        let counters = try await server.counters()
        #expect(holderLines.contains("KEPT"), "\(holderLines)")
        #expect(!holderLines.contains("SENT"), "\(holderLines)")
        #expect(holderLines.contains("RESULT ok=1"), "\(holderLines)")
        #expect(counters.refreshTokenReuses == 0, "the stale refresh token reached the server")
        #expect(counters.refreshGrants == 1)
    }
}
