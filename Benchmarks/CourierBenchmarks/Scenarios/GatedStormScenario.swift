import Courier
import CourierTestServer
import CourierTestServerTargets
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Refresh storm with the per-host gate on (`maxRequestsPerHost`): 1,000 concurrent
/// requests whose token the server has just expired, through a provider that lets at most
/// `limit` calls to the host be in flight — the same number as URLSession's connections per
/// host, so the gate costs no throughput. The first calls go out with the dead token and
/// come back 401; they keep their slots through the one refresh and their replays, so every
/// other request is signed after the refresh, with the new token.
///
/// Each round measures, side by side (the order alternates): the gated storm (first 401 →
/// last success), one refresh round trip, one batch of the same 1,000 requests with a valid
/// token through an ungated provider (the same denominator as the ungated storm's ratio)
/// and through the gated one.
struct GatedStormScenario {
    let requests: Int
    let rounds: Int
    let limit: Int

    static let target = 1.2

    func run() async throws -> ScenarioResult {
        let setup = try await ServerSession.start(tokenLifetime: 3600)
        let server = setup.server
        defer { server.stop() }
        let probe = StormProbe()
        let provider = RefreshableProvider<ProtectedAPI>(auth: setup.session, plugins: [probe])
        let gatedProvider = RefreshableProvider<ProtectedAPI>(
            auth: setup.session, plugins: [probe], maxRequestsPerHost: limit)
        let base = server.baseURL
        let count = requests

        // Warm-up: connections and lazy state, through both providers.
        _ = try await RefreshStormScenario.batch(count, provider: provider, base: base, probe: probe)
        _ = try await RefreshStormScenario.batch(count, provider: gatedProvider, base: base, probe: probe)

        var storm: [Double] = []
        var rejections: [Int] = []
        var serverRefreshes: [Int] = []
        var clientRefreshes: [Int] = []
        var refreshTrip: [Double] = []
        var validBatch: [Double] = []
        var gatedValidBatch: [Double] = []
        var failures = 0
        for round in 0..<rounds {
            let steps: [Step] =
                round % 2 == 0 ? [.storm, .refresh, .valid, .gatedValid] : [.gatedValid, .valid, .refresh, .storm]
            for step in steps {
                switch step {
                case .storm:
                    try await server.expireAccessTokens()
                    try await server.resetCounters()
                    setup.refreshCalls.reset()
                    let outcome = try await RefreshStormScenario.batch(
                        count, provider: gatedProvider, base: base, probe: probe)
                    let counters = try await server.counters()
                    guard let first401 = outcome.first401, let last = outcome.lastSuccess else {
                        throw StormFailure(description: "the gated storm saw no 401 or no success (\(outcome))")
                    }
                    storm.append(first401.duration(to: last).seconds)
                    rejections.append(counters.protected401)
                    serverRefreshes.append(counters.refreshGrants)
                    clientRefreshes.append(setup.refreshCalls.value)
                    failures += outcome.failures
                case .refresh:
                    let pair = try OAuthToken(
                        tokenResponse: try await server.issueToken(lifetime: 3600), receivedAt: Date())
                    let target = TokenEndpoint(base: base, grant: .refresh(pair.refreshToken ?? ""))
                    refreshTrip.append(
                        try await Timing.seconds {
                            _ = try OAuthToken(response: try await setup.tokenProvider.request(target))
                        })
                case .valid, .gatedValid:
                    let outcome = try await RefreshStormScenario.batch(
                        count, provider: step == .valid ? provider : gatedProvider, base: base, probe: probe)
                    guard let last = outcome.lastSuccess else {
                        throw StormFailure(description: "no success in a valid batch")
                    }
                    let seconds = outcome.started.duration(to: last).seconds
                    if step == .valid { validBatch.append(seconds) } else { gatedValidBatch.append(seconds) }
                    failures += outcome.failures
                }
            }
        }

        let ideal = zip(refreshTrip, validBatch).map { $0 + $1 }
        let ratio = Summary.ratios(storm, ideal)
        let exactlyOne = serverRefreshes.allSatisfy { $0 == 1 } && clientRefreshes.allSatisfy { $0 == 1 }

        var result = ScenarioResult()
        result.set("storm_gated_limit", limit)
        result.set("storm_gated_requests", count)
        result.set("storm_gated_rounds", rounds)
        result.set("storm_gated_ratio", ratio)
        result.set("storm_gated_seconds", Summary(storm))
        result.set("storm_gated_server_401s", Summary(rejections.map(Double.init)))
        result.set("storm_gated_refresh_calls", serverRefreshes.max() ?? 0)
        result.set("storm_gated_refresh_calls_min", serverRefreshes.min() ?? 0)
        result.set("storm_gated_refresh_closure_calls", clientRefreshes.max() ?? 0)
        result.set("storm_gated_failures", failures)
        result.set("storm_gated_refresh_round_trip_seconds", Summary(refreshTrip))
        result.set("storm_gated_valid_batch_seconds", Summary(validBatch))
        result.set("storm_gated_valid_batch_gated_seconds", Summary(gatedValidBatch))
        result.set("storm_gated_valid_batch_gated_ratio", Summary.ratios(gatedValidBatch, validBatch))

        let scenario = "Refresh storm, gated"
        let n = Format.integer(count)
        result.rows = [
            Row(
                scenario: scenario, metric: "refreshes per storm of \(n) (server; client)",
                measured:
                    "\(serverRefreshes.map(String.init).joined(separator: ", ")); \(clientRefreshes.map(String.init).joined(separator: ", "))",
                target: "1", verdict: exactlyOne ? .met : .missed),
            Row(
                scenario: scenario, metric: "failed requests (all rounds)", measured: Format.integer(failures),
                target: "0", verdict: failures == 0 ? .met : .missed),
            Row(
                scenario: scenario, metric: "requests that left with the dead token (limit \(limit))",
                measured: Summary(rejections.map(Double.init)).formatted(0)),
            Row(
                scenario: scenario, metric: "gated storm: first 401 → last success",
                measured: Summary(storm).formatted(3, unit: "s")),
            Row(
                scenario: scenario, metric: "one refresh round trip",
                measured: Summary(refreshTrip).formatted(4, unit: "s")),
            Row(
                scenario: scenario, metric: "one batch of \(n), valid token (no gate)",
                measured: Summary(validBatch).formatted(3, unit: "s")),
            Row(
                scenario: scenario, metric: "  storm ÷ (refresh + valid batch)",
                measured: ratio.formatted(2, unit: "×"),
                target: "≤ \(Self.target)×", verdict: ratio.median <= Self.target ? .met : .missed),
            Row(
                scenario: scenario, metric: "one batch of \(n), valid token, gated ÷ no gate",
                measured: Summary.ratios(gatedValidBatch, validBatch).formatted(2, unit: "×")),
        ]
        result.notes.append(
            "Refresh storm, gated: \(rounds) rounds; RefreshableProvider(maxRequestsPerHost: \(limit)), the number of "
                + "connections URLSession opens per host; a call keeps its slot through its refresh and replay.")
        return result
    }

    private enum Step { case storm, refresh, valid, gatedValid }
}
