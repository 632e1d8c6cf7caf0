import Courier
import CourierTestServer
import CourierTesting
import Foundation

#if PostgreSQLStore
    import CourierPostgres
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sessions in several processes that share a key of a PostgreSQL database (issue 28), on a
/// throw-away server the scenario starts (`TestPostgres`: initdb + pg_ctl, as the `postgres`
/// user when run as root). Needs the PostgreSQLStore trait (`swift run -c release --traits
/// PostgreSQLStore CourierBenchmarks --only fleetstorm`; scripts/bench does so when PostgreSQL
/// and libpq's headers are installed); without it the scenario reports itself skipped.
///
/// - **Fleet storm.** As the cross-process storm (``CrossProcessScenario``), with the children's
///   sessions on a `PostgresTokenStore` of one key instead of a token file: refreshes at the
///   server per storm (target 1), and the time from `GO` to the last success in the slowest
///   process against the same storm in one process on a store of its own (target ≤ 2×).
/// - **Freshness check.** µs per signed request with a session on a `PostgresTokenStore`
///   (the generation cached in the process and invalidated by `NOTIFY`: no round trip while
///   nothing changed) minus the same with a store of the session's own (target ≤ 2 µs, the
///   file coordinator's class).
struct FleetStormScenario {
    let processes: Int
    let requestsPerProcess: Int
    let rounds: Int
    let freshnessRounds: Int
    let freshnessRequests: Int

    static let stormTarget = 2.0
    static let freshnessTarget = 2.0

    func run() async throws -> ScenarioResult {
        #if PostgreSQLStore
            let database = try await TestPostgres()
            do {
                var result = ScenarioResult()
                try await storm(database, into: &result)
                try await freshness(database, into: &result)
                await database.stop()
                return result
            } catch {
                await database.stop()
                throw error
            }
        #else
            var skipped = ScenarioResult()
            skipped.rows = [
                Row(
                    scenario: "Fleet storm (PostgreSQL)", metric: "skipped: built without the PostgreSQLStore trait",
                    measured: "swift run -c release --traits PostgreSQLStore CourierBenchmarks --only fleetstorm")
            ]
            return skipped
        #endif
    }

    #if PostgreSQLStore
        // MARK: The storm

        private func storm(_ database: TestPostgres, into result: inout ScenarioResult) async throws {
            let server = try await TestServer.start(tokenLifetime: 3600)
            defer { server.stop() }
            try await server.configure(.init(reuseDetection: true))
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "courier-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            // The fleet's children get a token file path too (the child needs one), never used.
            let unused = folder.appendingPathComponent("unused/token.json")
            let alone = folder.appendingPathComponent("alone/token.json")
            let signIn = try PostgresDatabase(connection: database.connection)
            try PostgresTokenStore(database: signIn, key: "fleet").save(
                OAuthToken(tokenResponse: try await server.issueToken(lifetime: 3600), receivedAt: Date()))
            try FileTokenStore(url: alone).save(
                OAuthToken(tokenResponse: try await server.issueToken(lifetime: 3600), receivedAt: Date()))
            let total = processes * requestsPerProcess
            let fleet = try (0..<processes).map { _ in
                try StormChildProcess(
                    count: requestsPerProcess, server: server.baseURL, tokenFile: unused,
                    environment: ["COURIER_BENCH_POSTGRES": database.connection, "COURIER_BENCH_KEY": "fleet"])
            }
            let single = try StormChildProcess(count: total, server: server.baseURL, tokenFile: alone)
            defer { for child in fleet + [single] { child.finish() } }
            let storms = try await StormRounds.run(server: server, group: fleet, single: single, rounds: rounds)
            let (together, apart, refreshes) = (storms.together, storms.apart, storms.refreshes)
            let (reuses, failures) = (storms.reuses, storms.failures)
            let ratio = Summary.ratios(together, apart)
            let oneRefresh = refreshes.allSatisfy { $0 == 1 }
            result.set("fleet_storm_processes", processes)
            result.set("fleet_storm_requests_per_process", requestsPerProcess)
            result.set("fleet_storm_rounds", rounds)
            result.set("fleet_storm_refresh_calls", refreshes.max() ?? 0)
            result.set("fleet_storm_refresh_calls_min", refreshes.min() ?? 0)
            result.set("fleet_storm_refresh_token_reuses", reuses)
            result.set("fleet_storm_failures", failures)
            result.set("fleet_storm_seconds", Summary(together))
            result.set("fleet_storm_single_seconds", Summary(apart))
            result.set("fleet_storm_ratio", ratio)

            let scenario = "Fleet storm (PostgreSQL)"
            let shape = "\(processes) processes × \(requestsPerProcess)"
            result.rows += [
                Row(
                    scenario: scenario, metric: "refreshes per storm of \(shape), one key (server)",
                    measured: refreshes.map(String.init).joined(separator: ", "), target: "1",
                    verdict: oneRefresh && reuses == 0 ? .met : .missed),
                Row(
                    scenario: scenario, metric: "failed requests, refresh tokens sent twice (all rounds)",
                    measured: "\(failures), \(reuses)", target: "0, 0",
                    verdict: failures == 0 && reuses == 0 ? .met : .missed),
                Row(
                    scenario: scenario, metric: "storm: GO → last success, slowest process",
                    measured: Summary(together).formatted(3, unit: "s")),
                Row(
                    scenario: scenario, metric: "the same \(Format.integer(total)) requests in one process",
                    measured: Summary(apart).formatted(3, unit: "s")),
                Row(
                    scenario: scenario, metric: "  fleet on PostgreSQL ÷ one process",
                    measured: ratio.formatted(2, unit: "×"), target: "≤ \(Self.stormTarget)×",
                    verdict: ratio.median <= Self.stormTarget ? .met : .missed),
            ]
            result.notes.append(
                "Fleet storm: \(rounds) rounds against the Python test server with reuse detection and a throw-away "
                    + "PostgreSQL on loopback (fsync off); the children (this executable with --child "
                    + "crossprocess-storm and COURIER_BENCH_POSTGRES) live across rounds, and the two storms alternate."
            )
        }

        // MARK: The freshness check

        private func freshness(_ server: TestPostgres, into result: inout ScenarioResult) async throws {
            let token = OAuthToken(
                accessToken: "at-bench", refreshToken: "rt-bench", expiresAt: Date() + 86_400, issuedAt: Date())
            let database = try PostgresDatabase(connection: server.connection)
            let fleetStore = PostgresTokenStore(database: database, key: "fresh")
            try fleetStore.save(token)
            let own = OwnStore(token)
            let transport = ImmediateTransport(
                statusCode: 200, data: smallJSONBody, headers: ["Content-Type": "application/json"])
            func provider(_ store: any TokenStore) -> RefreshableProvider<ProtectedAPI> {
                RefreshableProvider<ProtectedAPI>(
                    auth: AuthSession(store: store, refresh: { $0 }), transport: transport)
            }
            let shared = provider(fleetStore)
            let alone = provider(own)
            let target = ProtectedAPI(baseURL: PipelineAPI.base, path: "items/42")
            let coordinator = fleetStore.postgresCoordinator
            let count = freshnessRequests
            let variants: [Interleaved.Variant<PerCall>] = [
                .init(name: "postgres") {
                    try await Timing.perCall(count) { try await shared.request(target).statusCode }
                },
                .init(name: "own") { try await Timing.perCall(count) { try await alone.request(target).statusCode } },
                .init(name: "check") {
                    try await Timing.perCall(count * 10) { Int(try await coordinator.currentGeneration() ?? 0) }
                },
            ]
            // The first requests read the row (and the listener starts): warm-up, not measured.
            for variant in variants { _ = try await variant.round() }
            let samples = try await Interleaved.run(rounds: freshnessRounds, variants)
            FreshnessReport(
                scenario: "Fleet freshness (PostgreSQL)", keyPrefix: "fleet", storeVariant: "postgres",
                storeKey: "postgres", storeLabel: "PostgresTokenStore",
                checkLabel: "the cached generation; NOTIFY invalidates it", target: Self.freshnessTarget
            ).add(samples, to: &result)
            result.notes.append(
                "Fleet freshness: \(freshnessRounds) interleaved rounds of \(Format.integer(count)) sequential "
                    + "signed requests per variant through an in-memory transport, the session on a PostgresTokenStore "
                    + "whose generation is cached until a NOTIFY; "
                    + FreshnessReport.clockNote(samples))
        }
    #endif
}
