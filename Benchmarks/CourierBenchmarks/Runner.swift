import Foundation

/// Runs the chosen scenarios, prints the table and writes the JSON.
struct Runner {
    let options: Options

    func run() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        var all = ScenarioResult()
        all.set("quick", options.quick)
        all.set("machine_cores", ProcessInfo.processInfo.activeProcessorCount)
        all.set("date", ISO8601DateFormatter().string(from: Date()))
        for scenario in options.scenarios {
            progress("== \(scenario.rawValue)")
            let scenarioStart = clock.now
            let result = try await run(scenario)
            progress("   \(Format.number(scenarioStart.duration(to: clock.now).seconds, 1)) s")
            all.append(result)
        }
        all.set("total_seconds", started.duration(to: clock.now).seconds)
        print("")
        print(ResultPrinter.table(all.rows))
        print("")
        for note in all.notes { print("- " + note) }
        if let path = options.jsonPath {
            try ResultPrinter.write(ResultPrinter.json(all.values), to: path)
            print("\nJSON written to \(path)")
        }
    }

    private func run(_ scenario: Options.Scenario) async throws -> ScenarioResult {
        let quick = options.quick
        switch scenario {
        case .pipeline:
            return try await PipelineScenario(requestsPerRound: quick ? 10_000 : 40_000, rounds: quick ? 7 : 15).run()
        case .loopback:
            guard let port = options.nginxPort else {
                var skipped = ScenarioResult()
                skipped.rows = [
                    Row(
                        scenario: "Loopback (nginx)", metric: "skipped: no nginx port",
                        measured: "run scripts/bench, or pass --nginx-port")
                ]
                return skipped
            }
            return try await LoopbackScenario(
                port: port, sequentialRequests: quick ? 1_500 : 5_000, concurrentRequests: quick ? 3_000 : 5_000,
                sequentialRounds: quick ? 10 : 25, concurrentRounds: quick ? 5 : 10
            ).run()
        case .storm:
            return try await RefreshStormScenario(requests: 1_000, rounds: quick ? 3 : 7).run()
        case .gatedstorm:
            return try await GatedStormScenario(requests: 1_000, rounds: quick ? 3 : 7, limit: 6).run()
        case .crossprocess:
            return try await CrossProcessScenario(
                processes: 4, requestsPerProcess: 50, rounds: quick ? 3 : 7, freshnessRounds: quick ? 7 : 15,
                freshnessRequests: quick ? 10_000 : 40_000
            ).run()
        case .fleetstorm:
            return try await FleetStormScenario(
                processes: 4, requestsPerProcess: 50, rounds: quick ? 3 : 7, freshnessRounds: quick ? 7 : 15,
                freshnessRequests: quick ? 10_000 : 40_000
            ).run()
        case .queue:
            return try await QueuedMemoryScenario(requests: 10_000, runs: quick ? 1 : 3).run()
        case .soak:
            return try await SoakScenario(seconds: quick ? 10 : 60, loops: 4).run()
        case .upload:
            return try await UploadMemoryScenario(megabytes: 100, runs: quick ? 1 : 3).run()
        case .faultsoak:
            return try await FaultSoakScenario(seconds: quick ? 12 : 120).run()
        case .bomb:
            return try await BombMemoryScenario(megabytes: 200, spinners: 8, runs: quick ? 2 : 5).run()
        case .redaction:
            return try await RedactionScenario(rounds: quick ? 5 : 11, repetitions: quick ? 3 : 5).run()
        case .dpop:
            return try await DPoPScenario(requestsPerRound: quick ? 5_000 : 20_000, rounds: quick ? 5 : 11).run()
        case .idleclose:
            return try await IdleCloseScenario(rounds: quick ? 3 : 7).run()
        }
    }
}

/// Prints a progress line to standard error, so standard output holds only the results.
func progress(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
