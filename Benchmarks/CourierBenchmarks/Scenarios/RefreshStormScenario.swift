import Courier
import CourierTestServer
import CourierTestServerTargets
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Refresh storm: 1,000 concurrent requests whose token the server has just expired. Each
/// round measures, side by side (the order alternates):
///
/// - the storm: all 1,000 requests are signed with the token the server has just expired
///   (a gate holds each one after signing until all are signed), then sent at once; the
///   time from the first 401 the client sees to the last success;
/// - the same without the gate ("unsynchronised"): requests signed after the first 401
///   wait for the refresh instead of going out with the dead token;
/// - one refresh round trip (a refresh grant with a token pair of its own);
/// - one batch of the same 1,000 requests with a valid token;
/// - one batch of 1,000 requests that are all answered 401 (a plain provider, no refresh):
///   the work the server must do anyway for the rejected first attempts.
struct RefreshStormScenario {
    let requests: Int
    let rounds: Int

    static let target = 1.2

    func run() async throws -> ScenarioResult {
        let setup = try await ServerSession.start(tokenLifetime: 3600)
        let server = setup.server
        defer { server.stop() }
        let probe = StormProbe()
        let provider = RefreshableProvider<ProtectedAPI>(auth: setup.session, plugins: [probe])
        let gate = SigningGate()
        // The gate runs after the signing plugin, so every first attempt carries the old token.
        let gatedProvider = RefreshableProvider<ProtectedAPI>(auth: setup.session, plugins: [gate, probe])
        let rejectedProvider = Provider<ProtectedAPI>(plugins: [RejectedTokenPlugin()])
        let base = server.baseURL
        let count = requests

        // Warm-up: connections and lazy state, a valid batch and a rejected one.
        _ = try await Self.batch(count, provider: provider, base: base, probe: probe)
        _ = try await Self.batch(count, provider: rejectedProvider, base: base, probe: probe)

        var storm: [Double] = []
        var stormTotal: [Double] = []
        var rejectionWave: [Double] = []
        var looseStorm: [Double] = []
        var loose401s: [Int] = []
        var refreshTrip: [Double] = []
        var validBatch: [Double] = []
        var rejectedBatch: [Double] = []
        var refreshes: [Int] = []
        var clientRefreshes: [Int] = []
        var rejections: [Int] = []
        var failures = 0
        for round in 0..<rounds {
            let steps: [Step] =
                round % 2 == 0
                ? [.storm, .refresh, .valid, .rejected, .looseStorm]
                : [.looseStorm, .valid, .rejected, .refresh, .storm]
            for step in steps {
                switch step {
                case .looseStorm:
                    try await server.expireAccessTokens()
                    try await server.resetCounters()
                    let outcome = try await Self.batch(count, provider: provider, base: base, probe: probe)
                    let counters = try await server.counters()
                    guard let first401 = outcome.first401, let last = outcome.lastSuccess else {
                        throw StormFailure(
                            description: "the unsynchronised storm saw no 401 or no success (\(outcome))")
                    }
                    looseStorm.append(first401.duration(to: last).seconds)
                    loose401s.append(counters.protected401)
                    refreshes.append(counters.refreshGrants)
                    failures += outcome.failures
                case .storm:
                    try await server.expireAccessTokens()
                    try await server.resetCounters()
                    setup.refreshCalls.reset()
                    gate.arm(count)
                    let outcome = try await Self.batch(count, provider: gatedProvider, base: base, probe: probe)
                    let counters = try await server.counters()
                    guard let first401 = outcome.first401, let last = outcome.lastSuccess, let last401 = outcome.last401
                    else {
                        throw StormFailure(description: "the storm saw no 401 or no success (\(outcome))")
                    }
                    storm.append(first401.duration(to: last).seconds)
                    stormTotal.append(outcome.started.duration(to: last).seconds)
                    rejectionWave.append(first401.duration(to: last401).seconds)
                    refreshes.append(counters.refreshGrants)
                    clientRefreshes.append(setup.refreshCalls.value)
                    rejections.append(counters.protected401)
                    failures += outcome.failures
                case .refresh:
                    let pair = try OAuthToken(
                        tokenResponse: try await server.issueToken(lifetime: 3600), receivedAt: Date())
                    let target = TokenEndpoint(base: base, grant: .refresh(pair.refreshToken ?? ""))
                    let seconds = try await Timing.seconds {
                        _ = try OAuthToken(response: try await setup.tokenProvider.request(target))
                    }
                    refreshTrip.append(seconds)
                case .valid:
                    let outcome = try await Self.batch(count, provider: provider, base: base, probe: probe)
                    guard let last = outcome.lastSuccess else {
                        throw StormFailure(description: "no success in a valid batch")
                    }
                    validBatch.append(outcome.started.duration(to: last).seconds)
                    failures += outcome.failures
                case .rejected:
                    let started = ContinuousClock.now
                    _ = try await Self.batch(count, provider: rejectedProvider, base: base, probe: probe)
                    rejectedBatch.append(started.duration(to: .now).seconds)
                }
            }
        }

        let ideal = zip(refreshTrip, validBatch).map { $0 + $1 }
        let ratio = Summary.ratios(storm, ideal)
        let inherent = zip(ideal, rejectedBatch).map { $0 + $1 }
        let inherentRatio = Summary.ratios(storm, inherent)

        var result = ScenarioResult()
        result.set("storm_requests", count)
        result.set("storm_rounds", rounds)
        result.set("storm_refresh_calls", refreshes.max() ?? 0)
        result.set("storm_refresh_calls_min", refreshes.min() ?? 0)
        result.set("storm_refresh_closure_calls", clientRefreshes.max() ?? 0)
        result.set("storm_failures", failures)
        result.set("storm_ratio", ratio)
        result.set("storm_seconds", Summary(storm))
        result.set("storm_total_seconds", Summary(stormTotal))
        result.set("storm_rejection_wave_seconds", Summary(rejectionWave))
        result.set("storm_server_401s", Summary(rejections.map(Double.init)))
        result.set("storm_refresh_round_trip_seconds", Summary(refreshTrip))
        result.set("storm_valid_batch_seconds", Summary(validBatch))
        result.set("storm_rejected_batch_seconds", Summary(rejectedBatch))
        result.set("storm_ratio_including_rejections", inherentRatio)
        result.set("storm_unsynchronised_seconds", Summary(looseStorm))
        result.set("storm_unsynchronised_ratio", Summary.ratios(looseStorm, ideal))
        result.set("storm_unsynchronised_server_401s", Summary(loose401s.map(Double.init)))

        let scenario = "Refresh storm"
        let n = Format.integer(count)
        let exactlyOne = refreshes.allSatisfy { $0 == 1 } && clientRefreshes.allSatisfy { $0 == 1 }
        result.rows = [
            Row(
                scenario: scenario, metric: "refreshes per storm of \(n) (server, both kinds; client, gated)",
                measured:
                    "\(refreshes.map(String.init).joined(separator: ", ")); \(clientRefreshes.map(String.init).joined(separator: ", "))",
                target: "1", verdict: exactlyOne ? .met : .missed),
            Row(
                scenario: scenario, metric: "failed requests (all rounds)", measured: Format.integer(failures),
                target: "0",
                verdict: failures == 0 ? .met : .missed),
            Row(
                scenario: scenario, metric: "storm: first 401 → last success",
                measured: Summary(storm).formatted(3, unit: "s")),
            Row(
                scenario: scenario, metric: "  of which first → last 401",
                measured: Summary(rejectionWave).formatted(3, unit: "s")),
            Row(
                scenario: scenario, metric: "one refresh round trip",
                measured: Summary(refreshTrip).formatted(4, unit: "s")),
            Row(
                scenario: scenario, metric: "one batch of \(n), valid token",
                measured: Summary(validBatch).formatted(3, unit: "s")),
            Row(
                scenario: scenario, metric: "  storm ÷ (refresh + valid batch)",
                measured: ratio.formatted(2, unit: "×"),
                target: "≤ \(Self.target)×", verdict: ratio.median <= Self.target ? .met : .missed),
            Row(
                scenario: scenario, metric: "one batch of \(n), all answered 401",
                measured: Summary(rejectedBatch).formatted(3, unit: "s")),
            Row(
                scenario: scenario, metric: "  storm ÷ (refresh + valid + 401 batch)",
                measured: inherentRatio.formatted(2, unit: "×")),
            Row(
                scenario: scenario, metric: "unsynchronised storm: first 401 → last success",
                measured: Summary(looseStorm).formatted(3, unit: "s")),
            Row(
                scenario: scenario, metric: "  requests that left with the dead token",
                measured: Summary(loose401s.map(Double.init)).formatted(0)),
            Row(
                scenario: scenario, metric: "  ÷ (refresh + valid batch)",
                measured: Summary.ratios(looseStorm, ideal).formatted(2, unit: "×")),
        ]
        result.notes.append(
            "Refresh storm: \(rounds) rounds against the Python test server (URLSession's default of 6 connections "
                + "per host); each storm answers \(n) first attempts 401, so the server serves 2×\(n) requests, "
                + "while the issue's baseline counts \(n).")
        return result
    }

    private enum Step { case storm, looseStorm, refresh, valid, rejected }

    struct Outcome: CustomStringConvertible {
        let started: ContinuousClock.Instant
        let first401: ContinuousClock.Instant?
        let last401: ContinuousClock.Instant?
        let lastSuccess: ContinuousClock.Instant?
        let failures: Int

        var description: String {
            "first401: \(String(describing: first401)), lastSuccess: \(String(describing: lastSuccess)), failures: \(failures)"
        }
    }

    /// Sends `count` requests at once and waits for all of them.
    static func batch(_ count: Int, provider: Provider<ProtectedAPI>, base: URL, probe: StormProbe) async throws
        -> Outcome
    {
        probe.reset()
        let started = ContinuousClock.now
        let failures = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        return try await provider.request(ProtectedAPI(baseURL: base, path: "api/items/\(index)"))
                            .statusCode == 200
                    } catch {
                        return false
                    }
                }
            }
            var failures = 0
            for await ok in group where !ok { failures += 1 }
            return failures
        }
        let (first401, last401, lastSuccess) = probe.snapshot()
        return Outcome(
            started: started, first401: first401, last401: last401, lastSuccess: lastSuccess, failures: failures)
    }
}

struct StormFailure: Error, CustomStringConvertible {
    let description: String
}

/// Records when 401s and successes arrive (every attempt, replays included).
final class StormProbe: PluginType, Sendable {
    private struct Instants {
        var first401: ContinuousClock.Instant?
        var last401: ContinuousClock.Instant?
        var lastSuccess: ContinuousClock.Instant?
    }

    private let instants = LockIsolated(Instants())

    func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
        guard case .success(let response) = result else { return }
        let now = ContinuousClock.now
        instants.withValue { instants in
            if response.statusCode == 401 {
                if instants.first401 == nil { instants.first401 = now }
                instants.last401 = now
            } else if response.statusCode == 200 {
                instants.lastSuccess = now
            }
        }
    }

    func reset() {
        instants.setValue(Instants())
    }

    func snapshot() -> (ContinuousClock.Instant?, ContinuousClock.Instant?, ContinuousClock.Instant?) {
        let instants = instants.value
        return (instants.first401, instants.last401, instants.lastSuccess)
    }
}

/// Signs every request with a token the server never issued, so each is answered 401.
struct RejectedTokenPlugin: PluginType {
    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        var request = request
        request.setValue("Bearer at-0-rejected", forHTTPHeaderField: "Authorization")
        return request
    }
}

/// Holds each first attempt after it is signed until `count` have been signed, then lets
/// them all go at once; later requests (the replays) pass straight through.
final class SigningGate: PluginType, Sendable {
    private struct State {
        var expected = 0
        var arrived = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockIsolated(State())

    /// The next `count` requests wait for each other.
    func arm(_ count: Int) {
        state.withValue { state in
            state.expected = count
            state.arrived = 0
        }
    }

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let release: [CheckedContinuation<Void, Never>] = state.withValue { state in
                guard state.arrived < state.expected else { return [continuation] }
                state.arrived += 1
                state.waiting.append(continuation)
                guard state.arrived == state.expected else { return [] }
                let all = state.waiting
                state.waiting.removeAll()
                return all
            }
            for waiter in release { waiter.resume() }
        }
        return request
    }
}
