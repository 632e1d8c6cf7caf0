import CourierSoak
import Foundation

/// The resilience soak of the integration tests, longer and alone in a child process:
/// 16 tasks send requests while the test server expires every token each second and
/// injects random faults (5 % of API requests answer 503, 10 % of token requests 500).
struct FaultSoakScenario {
    let seconds: Int

    func run() async throws -> ScenarioResult {
        let child = try ChildProcess.run(["--child", "fault-soak", "--child-count", String(seconds)])
        let started = Int(try child.number("started"))
        let completed = Int(try child.number("completed"))
        let duplicates = Int(try child.number("duplicate_completions"))
        let otherErrors = Int(try child.number("other_errors"))
        let expiries = Int(try child.number("expiries"))
        let refreshes = Int(try child.number("refresh_successes"))
        let stale = Int(try child.number("stale_after_refresh"))
        let growth = try child.number("rss_growth_bytes_per_request")
        var result = ScenarioResult()
        result.set("faultsoak_seconds", seconds)
        result.set("faultsoak_requests", started)
        result.set("faultsoak_completed", completed)
        result.set("faultsoak_expiries", expiries)
        result.set("faultsoak_refresh_calls", refreshes)
        result.set("faultsoak_stale_after_refresh", stale)
        result.set("faultsoak_refresh_failures", Int(try child.number("refresh_failures")))
        result.set("faultsoak_rss_growth_bytes_per_request", growth)
        let scenario = "Fault soak (\(seconds) s)"
        result.rows = [
            Row(
                scenario: scenario, metric: "requests completed exactly once",
                measured:
                    "\(Format.integer(completed)) of \(Format.integer(started)), \(duplicates) twice, \(otherErrors) untyped",
                target: "all, 0, 0",
                verdict: completed == started && duplicates == 0 && otherErrors == 0 ? .met : .missed),
            Row(
                scenario: scenario, metric: "refreshes / expiries crossed", measured: "\(refreshes) / \(expiries)",
                target: "equal", verdict: refreshes == expiries ? .met : .missed),
            Row(
                scenario: scenario, metric: "stale tokens sent after a refresh", measured: "\(stale)", target: "0",
                verdict: stale == 0 ? .met : .missed),
            Row(
                scenario: scenario, metric: "RSS growth per request after round 1",
                measured: "\(Format.number(growth, 0)) B"),
        ]
        result.notes.append(
            "Fault soak: a child process runs Tests/Soak's SoakRun for \(seconds) s in 6 rounds; RSS growth is from the "
                + "end of round 1 to the end of the run, divided by the requests sent meanwhile.")
        return result
    }
}

/// The child side of ``FaultSoakScenario``.
enum FaultSoakChild {
    static func run(seconds: Int) async throws -> [String: Double] {
        let rounds = 6
        let report = try await SoakRun(configuration: .init(duration: TimeInterval(seconds), rounds: rounds)).run()
        let rss = report.residentKiBPerRound
        let laterRequests = Double(report.started) * Double(rounds - 1) / Double(rounds)
        let growth = rss.count >= 2 ? Double(max(0, (rss.last ?? 0) - rss[0]) * 1024) / laterRequests : 0
        return [
            "started": Double(report.started), "completed": Double(report.completed),
            "duplicate_completions": Double(report.duplicateCompletions),
            "other_errors": Double(report.otherErrors.count), "expiries": Double(report.expiries),
            "refresh_successes": Double(report.refreshSuccesses),
            "stale_after_refresh": Double(report.staleAfterRefresh),
            "refresh_failures": Double(report.refreshFailures), "rss_growth_bytes_per_request": growth,
        ]
    }
}
