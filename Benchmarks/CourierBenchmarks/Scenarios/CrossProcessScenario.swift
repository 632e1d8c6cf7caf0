import Courier
import CourierTestServer
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sessions in several processes on one token file (issue 19).
///
/// - **Cross-process storm.** `processes` child processes (this executable again), each with
///   a session on the same `FileTokenStore` file, each sending `requestsPerProcess` requests
///   at once whose token the server has just expired (a gate holds each after signing until
///   all of that process's are signed). The server rotates refresh tokens and revokes the
///   family on reuse. Measured: refreshes at the server per storm (target 1), and the time from
///   `GO` to the last success in the slowest process, against the same storm of
///   `processes × requestsPerProcess` requests in one process (target ≤ 1.5×). Process start-up
///   and warm-up are not counted: the children live across rounds.
/// - **Freshness check.** µs per signed request through a `RefreshableProvider` over an
///   in-memory transport, with a session on a `FileTokenStore` (which reads the lock file's
///   generation before every request) minus the same with a store of the session's own (no
///   file): the price of hearing about other processes' tokens (target ≤ 2 µs). Also the check
///   alone.
struct CrossProcessScenario {
    let processes: Int
    let requestsPerProcess: Int
    let rounds: Int
    let freshnessRounds: Int
    let freshnessRequests: Int

    static let stormTarget = 1.5
    static let freshnessTarget = 2.0

    func run() async throws -> ScenarioResult {
        var result = ScenarioResult()
        try await storm(into: &result)
        try await freshness(into: &result)
        return result
    }

    // MARK: The storm

    private func storm(into result: inout ScenarioResult) async throws {
        let server = try await TestServer.start(tokenLifetime: 3600)
        defer { server.stop() }
        try await server.configure(.init(reuseDetection: true))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let shared = folder.appendingPathComponent("shared/token.json")
        let alone = folder.appendingPathComponent("alone/token.json")
        for file in [shared, alone] {
            let issued = try await server.issueToken(lifetime: 3600)
            try FileTokenStore(url: file).save(OAuthToken(tokenResponse: issued, receivedAt: Date()))
        }
        let total = processes * requestsPerProcess
        let crossChildren = try (0..<processes).map { _ in
            try StormChildProcess(count: requestsPerProcess, server: server.baseURL, tokenFile: shared)
        }
        let single = try StormChildProcess(count: total, server: server.baseURL, tokenFile: alone)
        defer { for child in crossChildren + [single] { child.finish() } }
        let storms = try await StormRounds.run(server: server, group: crossChildren, single: single, rounds: rounds)
        let (cross, alone1, refreshes) = (storms.together, storms.apart, storms.refreshes)
        let (singleRefreshes, rejected, reuses, failures) = (
            storms.singleRefreshes, storms.rejected, storms.reuses, storms.failures
        )
        let ratio = Summary.ratios(cross, alone1)
        let oneRefresh = refreshes.allSatisfy { $0 == 1 }
        result.set("crossprocess_processes", processes)
        result.set("crossprocess_requests_per_process", requestsPerProcess)
        result.set("crossprocess_storm_rounds", rounds)
        result.set("crossprocess_storm_refresh_calls", refreshes.max() ?? 0)
        result.set("crossprocess_storm_refresh_calls_min", refreshes.min() ?? 0)
        result.set("crossprocess_storm_server_401s", Summary(rejected.map(Double.init)))
        result.set("crossprocess_storm_refresh_token_reuses", reuses)
        result.set("crossprocess_storm_failures", failures)
        result.set("crossprocess_storm_seconds", Summary(cross))
        result.set("crossprocess_single_storm_seconds", Summary(alone1))
        result.set("crossprocess_single_storm_refresh_calls", singleRefreshes.max() ?? 0)
        result.set("crossprocess_storm_ratio", ratio)

        let scenario = "Cross-process storm"
        let shape = "\(processes) processes × \(requestsPerProcess)"
        result.rows += [
            Row(
                scenario: scenario, metric: "refreshes per storm of \(shape) (server)",
                measured: refreshes.map(String.init).joined(separator: ", "), target: "1",
                verdict: oneRefresh && reuses == 0 ? .met : .missed),
            Row(
                scenario: scenario, metric: "  requests answered 401 per storm (all carried the expired token)",
                measured: Summary(rejected.map(Double.init)).formatted(0)),
            Row(
                scenario: scenario, metric: "failed requests, refresh tokens sent twice (all rounds)",
                measured: "\(failures), \(reuses)", target: "0, 0",
                verdict: failures == 0 && reuses == 0 ? .met : .missed),
            Row(
                scenario: scenario, metric: "storm: GO → last success, slowest process",
                measured: Summary(cross).formatted(3, unit: "s")),
            Row(
                scenario: scenario, metric: "the same \(Format.integer(total)) requests in one process",
                measured: Summary(alone1).formatted(3, unit: "s")),
            Row(
                scenario: scenario, metric: "  cross-process ÷ one process", measured: ratio.formatted(2, unit: "×"),
                target: "≤ \(Self.stormTarget)×", verdict: ratio.median <= Self.stormTarget ? .met : .missed),
        ]
        result.notes.append(
            "Cross-process storm: \(rounds) rounds against the Python test server with reuse detection; the "
                + "children (this executable with --child crossprocess-storm) live across rounds, so start-up is not "
                + "counted, and the two storms alternate.")
    }

    static func expect(_ line: String, from lines: inout AsyncStream<String>.Iterator) async throws {
        guard let next = await lines.next(), next == line else {
            throw StormFailure(description: "a storm child did not say \(line)")
        }
    }

    static func result(from lines: inout AsyncStream<String>.Iterator) async throws -> (
        seconds: Double, failures: Int
    ) {
        guard let line = await lines.next(), line.hasPrefix("RESULT ") else {
            throw StormFailure(description: "a storm child ended without a result")
        }
        var values: [String: Double] = [:]
        for field in line.dropFirst("RESULT ".count).split(separator: " ") {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        guard let seconds = values["seconds"], seconds >= 0 else {
            throw StormFailure(description: "a storm child saw no success: \(line)")
        }
        return (seconds, Int(values["failures"] ?? 0))
    }

    // MARK: The freshness check

    /// The freshness check's three loops, on a token file in a folder of their own (removed by
    /// ``remove()``).
    private struct FreshnessSetup {
        let folder: URL
        let shared: RefreshableProvider<ProtectedAPI>
        let alone: RefreshableProvider<ProtectedAPI>
        let coordinator: any TokenStoreCoordinator
        let target = ProtectedAPI(baseURL: PipelineAPI.base, path: "items/42")

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(UUID().uuidString)")
            let token = OAuthToken(
                accessToken: "at-bench", refreshToken: "rt-bench", expiresAt: Date() + 86_400, issuedAt: Date())
            let file = FileTokenStore(url: folder.appendingPathComponent("token.json"))
            try file.save(token)
            let transport = ImmediateTransport(
                statusCode: 200, data: smallJSONBody, headers: ["Content-Type": "application/json"])
            func provider(_ store: any TokenStore) -> RefreshableProvider<ProtectedAPI> {
                RefreshableProvider<ProtectedAPI>(
                    auth: AuthSession(store: store, refresh: { $0 }), transport: transport)
            }
            shared = provider(file)
            alone = provider(OwnStore(token))
            coordinator = file.coordinator!
        }

        func file(_ count: Int) async throws -> PerCall {
            try await Timing.perCall(count) { try await shared.request(target).statusCode }
        }

        func own(_ count: Int) async throws -> PerCall {
            try await Timing.perCall(count) { try await alone.request(target).statusCode }
        }

        func check(_ count: Int) async throws -> PerCall {
            try await Timing.perCall(count) { Int(try await coordinator.currentGeneration() ?? 0) }
        }

        func remove() {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// For profilers (`--spin freshness-file|freshness-own|freshness-check COUNT`): one loop of
    /// the freshness check, `count` times, and nothing else; `--spin freshness-table ROUNDS`:
    /// the freshness measurement alone, with its table. `nil` for a variant not its own.
    static func spin(_ variant: String, count: Int) async -> Int32? {
        guard variant.hasPrefix("freshness-") else { return nil }
        do {
            if variant == "freshness-table" {
                // The scenario's freshness half alone, `count` rounds of 10,000 requests: a
                // quicker way to compare two builds than the whole scenario.
                var result = ScenarioResult()
                let scenario = CrossProcessScenario(
                    processes: 0, requestsPerProcess: 0, rounds: 0, freshnessRounds: count, freshnessRequests: 10_000)
                try await scenario.freshness(into: &result)
                print(ResultPrinter.table(result.rows))
                for (key, value) in result.values { print("\(key) = \(value.json)") }
                return 0
            }
            let setup = try FreshnessSetup()
            defer { setup.remove() }
            switch variant {
            case "freshness-file": _ = try await setup.file(count)
            case "freshness-own": _ = try await setup.own(count)
            case "freshness-check": _ = try await setup.check(count)
            default:
                progress(
                    "unknown variant \(variant): freshness-table, freshness-file, freshness-own or freshness-check")
                return 2
            }
        } catch {
            progress("error: \(error)")
            return 1
        }
        return 0
    }

    private func freshness(into result: inout ScenarioResult) async throws {
        let setup = try FreshnessSetup()
        defer { setup.remove() }
        let count = freshnessRequests
        let variants: [Interleaved.Variant<PerCall>] = [
            .init(name: "file") { try await setup.file(count) },
            .init(name: "own") { try await setup.own(count) },
            .init(name: "check") { try await setup.check(count * 10) },
        ]
        for variant in variants { _ = try await variant.round() }
        let samples = try await Interleaved.run(rounds: freshnessRounds, variants)
        FreshnessReport(
            scenario: "Cross-process freshness", keyPrefix: "crossprocess", storeVariant: "file", storeKey: "file",
            storeLabel: "FileTokenStore", checkLabel: "one pread of the lock file", target: Self.freshnessTarget
        ).add(samples, to: &result)
        result.notes.append(
            "Cross-process freshness: \(freshnessRounds) interleaved rounds of \(Format.integer(count)) sequential "
                + "signed requests per variant through an in-memory transport; "
                + FreshnessReport.clockNote(samples))
    }
}

/// A store no other session shares: the session checks only its own memory before a request.
struct OwnStore: TokenStore {
    let token: Locked<OAuthToken?>

    init(_ token: OAuthToken) {
        self.token = Locked(token)
    }

    func load() throws -> OAuthToken? { token.withValue { $0 } }
    func save(_ token: OAuthToken?) throws { self.token.withValue { $0 = token } }
}
