import Courier
import CourierTestServer
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Proactive refresh soak: steady traffic for a while with tokens that live 2 s. No request
/// may be answered 401, and the token is refreshed at a steady pace.
///
/// `AuthPlugin` refreshes a token that expires within its leeway (60 s by default), capped at
/// half the token's lifetime, so a 2 s token is refreshed once it is 1 s old: the expected
/// count is elapsed ÷ (lifetime − min(leeway, lifetime ÷ 2)) = elapsed ÷ 1 s, twice
/// elapsed ÷ lifetime.
struct SoakScenario {
    let seconds: Double
    let loops: Int
    let lifetime: TimeInterval = 2
    let leeway: TimeInterval = 60
    /// Pause between two requests of one loop: steady traffic, not a flood.
    let pause: Duration = .milliseconds(2)

    func run() async throws -> ScenarioResult {
        // No refresh window: its default (5 refreshes in 30 s) is meant to stop storms, and
        // 2 s tokens need one refresh a second.
        let setup = try await ServerSession.start(tokenLifetime: lifetime, refreshWindow: nil)
        let server = setup.server
        defer { server.stop() }
        let provider = RefreshableProvider<ProtectedAPI>(
            auth: setup.session, authPlugin: AuthPlugin(auth: setup.session, refreshLeeway: leeway))
        let base = server.baseURL
        try await server.resetCounters()
        setup.refreshCalls.reset()

        let statuses = StatusTally()
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = started.advanced(by: .seconds(seconds))
        let pause = self.pause
        await withTaskGroup(of: Void.self) { group in
            for loop in 0..<loops {
                group.addTask {
                    var index = 0
                    while clock.now < deadline {
                        index += 1
                        do {
                            let response = try await provider.request(
                                ProtectedAPI(baseURL: base, path: "api/soak/\(loop)/\(index)"))
                            statuses.record(response.statusCode)
                        } catch {
                            statuses.recordFailure()
                        }
                        try? await Task.sleep(for: pause)
                    }
                }
            }
        }
        let elapsed = started.duration(to: clock.now).seconds
        let counters = try await server.counters()
        let effectiveLeeway = min(leeway, lifetime / 2)
        let expected = elapsed / (lifetime - effectiveLeeway)
        let refreshes = counters.refreshGrants
        // Each cycle also holds the refresh round trip and the wait for the next request (a
        // few ms), so the count lands on or just under the whole number of periods.
        let within = abs(refreshes - Int(expected.rounded(.down))) <= 1

        var result = ScenarioResult()
        result.set("soak_seconds", elapsed)
        result.set("soak_token_lifetime_seconds", lifetime)
        result.set("soak_effective_leeway_seconds", effectiveLeeway)
        result.set("soak_requests", counters.protectedRequests)
        result.set("soak_401_count", counters.protected401)
        result.set("soak_refresh_calls", refreshes)
        result.set("soak_refresh_closure_calls", setup.refreshCalls.value)
        result.set("soak_expected_refreshes", expected)
        result.set("soak_seconds_per_refresh", elapsed / Double(max(1, refreshes)))
        result.set("soak_failures", statuses.failures + statuses.non200)
        result.set("soak_loops", loops)
        result.set("soak_refresh_count_within_one", within)

        let scenario = "Proactive refresh soak"
        result.rows = [
            Row(
                scenario: scenario,
                metric: "\(Format.number(elapsed, 1)) s, \(loops) loops, 2 s tokens: requests",
                measured: Format.integer(counters.protectedRequests)),
            Row(
                scenario: scenario, metric: "  answered 401 (server count)",
                measured: Format.integer(counters.protected401),
                target: "0", verdict: counters.protected401 == 0 ? .met : .missed),
            Row(
                scenario: scenario, metric: "  refreshes (expected: elapsed ÷ 1 s)",
                measured: "\(refreshes) (expected \(Format.number(expected, 1)))", target: "± 1",
                verdict: within ? .met : .missed),
            Row(
                scenario: scenario, metric: "  failed or non-200 requests",
                measured: Format.integer(statuses.failures + statuses.non200),
                target: "0", verdict: statuses.failures + statuses.non200 == 0 ? .met : .missed),
        ]
        result.notes.append(
            "Soak: a 2 s token is refreshed when it has ≤ min(leeway 60 s, lifetime/2 = 1 s) left, i.e. once a second; "
                + "expected refreshes = elapsed ÷ (lifetime − 1 s).")
        return result
    }
}

/// Counts responses by outcome.
final class StatusTally: Sendable {
    private struct Counts {
        var ok = 0
        var other = 0
        var thrown = 0
    }

    private let counts = LockIsolated(Counts())

    func record(_ status: Int) { counts.withValue { if status == 200 { $0.ok += 1 } else { $0.other += 1 } } }
    func recordFailure() { counts.withValue { $0.thrown += 1 } }
    var non200: Int { counts.value.other }
    var failures: Int { counts.value.thrown }
}
