import Courier
import CourierTestServer
import Foundation
import Testing

/// Several real processes on one token file (`CourierCrossProcessChild`), against a server
/// that rotates refresh tokens and revokes the whole family on reuse: they behave as one
/// session. Every run: no logout, no request failed for authentication, one refresh per
/// expiry among all of them (not one per process), the file never missing or half-written,
/// and a fresh process then uses the file without signing in.
///
/// Serialized: each run already keeps both cores busy with its processes.
@Suite("Refresh across processes", .serialized, .timeLimit(.minutes(20)))
struct CrossProcessRefreshTests {
    func expectOneSession(
        _ outcome: CrossProcessRun.Outcome, _ run: CrossProcessRun, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let counters = try #require(outcome.counters)
        let summary =
            "\(run.processes) processes × \(run.sessionsPerProcess) sessions, \(run.kills) kills: "
            + "\(outcome.total("requests")) requests, \(outcome.total("ok")) ok, "
            + "\(counters.refreshGrants) refreshes at the server in \(String(format: "%.1f", outcome.elapsed)) s "
            + "(tokens of \(run.lifetime) s; at most \(outcome.refreshBound(lifetime: run.lifetime)) allowed), "
            + "\(counters.protected401) 401s replayed, \(outcome.fileReads) reads of the file"
        print("cross-process run: " + summary)
        // A killed process never reports; the one started in its place does.
        #expect(outcome.reports.count == run.processes, "\(summary)", sourceLocation: sourceLocation)
        #expect(outcome.exitedWithoutReport == 0, sourceLocation: sourceLocation)
        #expect(outcome.stalls == run.kills, sourceLocation: sourceLocation)
        for report in outcome.reports {
            #expect(report["logouts"] == 0, "\(report.text)", sourceLocation: sourceLocation)
            #expect(report["auth"] == 0, "\(report.text)", sourceLocation: sourceLocation)
            #expect(report["ok"] > 0, "\(report.text)", sourceLocation: sourceLocation)
        }
        #expect(
            counters.refreshTokenReuses == 0, "a refresh token was sent twice: \(summary)",
            sourceLocation: sourceLocation)
        #expect(counters.refreshGrants >= 1, sourceLocation: sourceLocation)
        #expect(
            counters.refreshGrants <= outcome.refreshBound(lifetime: run.lifetime), "\(summary)",
            sourceLocation: sourceLocation)
        #expect(counters.refreshGrants == outcome.clientRefreshes, sourceLocation: sourceLocation)
        #expect(counters.passwordGrants == 0, sourceLocation: sourceLocation)
        #expect(outcome.fileReads > 0, sourceLocation: sourceLocation)
        #expect(
            outcome.fileMissing == 0, "the token file was missing \(outcome.fileMissing) times",
            sourceLocation: sourceLocation)
        #expect(
            outcome.fileCorrupt == 0, "the token file was half-written \(outcome.fileCorrupt) times",
            sourceLocation: sourceLocation)
        let check = try #require(outcome.check, "the fresh process reported nothing", sourceLocation: sourceLocation)
        #expect(check["needsSignIn"] == 0, "\(check.text)", sourceLocation: sourceLocation)
        #expect(check["ok"] == 1, "\(check.text)", sourceLocation: sourceLocation)
    }

    @Test("2, 5 and 20 processes on one token file: one session", arguments: [2, 5, 20])
    func processes(_ count: Int) async throws {
        let run = CrossProcessRun(processes: count)
        try expectOneSession(try await run.run(), run)
    }

    @Test("the lease holder killed (kill -9) during its refresh, three times: the others go on without a logout")
    func killedHolder() async throws {
        let run = CrossProcessRun(processes: 5, duration: 5, kills: 3)
        try expectOneSession(try await run.run(), run)
    }

    @Test("two sessions on two FileTokenStore instances in one process, beside another process: one session")
    func twoSessionsInOneProcess() async throws {
        let run = CrossProcessRun(processes: 2, sessionsPerProcess: 2)
        try expectOneSession(try await run.run(), run)
    }
}
