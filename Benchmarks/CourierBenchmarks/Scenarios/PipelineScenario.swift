import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Pipeline overhead: µs per request through `Provider` with an in-memory transport and
/// through the stub path, side by side with the floor (building the `URLRequest` by hand)
/// and a few reference costs of Foundation on this machine.
struct PipelineScenario {
    let requestsPerRound: Int
    let rounds: Int

    static let pipelineTarget = 1.5
    static let stubTarget = 2.0

    static let plugins: [any PluginType] = [NoOpPlugin(), NoOpPlugin(), NoOpPlugin()]

    /// The provider measured: an in-memory transport that answers at once with a prebuilt
    /// response, and three no-op plugins.
    static func makeTransportProvider() -> Provider<PipelineAPI> {
        Provider<PipelineAPI>(
            transport: ImmediateTransport(
                statusCode: 200, data: smallJSONBody, headers: ["Content-Type": "application/json"]),
            plugins: plugins)
    }

    /// The same with a ``TelemetryPlugin`` whose telemetry does nothing: what turning
    /// telemetry on costs the pipeline itself.
    static func makeTelemetryProvider() -> Provider<PipelineAPI> {
        Provider<PipelineAPI>(
            transport: ImmediateTransport(
                statusCode: 200, data: smallJSONBody, headers: ["Content-Type": "application/json"]),
            plugins: plugins + [TelemetryPlugin(NoOpTelemetry())])
    }

    /// The same through the stub path.
    static func makeStubProvider() -> Provider<PipelineAPI> {
        Provider<PipelineAPI>(stubClosure: Provider.immediatelyStub, plugins: plugins)
    }

    /// Runs one loop `count` times and nothing else, for `perf stat` or callgrind.
    static func spin(_ variant: String, count: Int) async -> Int32 {
        let transportProvider = makeTransportProvider()
        let stubProvider = makeStubProvider()
        do {
            switch variant {
            case "floor": _ = Timing.perCall(count) { buildFloorRequest() }
            case "pipeline":
                _ = try await Timing.perCall(count) { try await transportProvider.request(.item).statusCode }
            case "stub":
                _ = try await Timing.perCall(count) { try await stubProvider.request(.item).statusCode }
            case "telemetry":
                let telemetryProvider = makeTelemetryProvider()
                _ = try await Timing.perCall(count) { try await telemetryProvider.request(.item).statusCode }
            default:
                progress("unknown variant \(variant): floor, pipeline, stub or telemetry")
                return 2
            }
        } catch {
            progress("error: \(error)")
            return 1
        }
        return 0
    }

    func run() async throws -> ScenarioResult {
        let transportProvider = Self.makeTransportProvider()
        let telemetryProvider = Self.makeTelemetryProvider()
        let stubProvider = Self.makeStubProvider()
        let count = requestsPerRound
        let callbackQueue = DispatchQueue(label: "CourierBenchmarks.callbacks")

        let variants: [Interleaved.Variant<PerCall>] = [
            .init(name: "floor") { Timing.perCall(count) { Self.buildFloorRequest() } },
            .init(name: "pipeline") {
                try await Timing.perCall(count) { try await transportProvider.request(.item).statusCode }
            },
            .init(name: "stub") {
                try await Timing.perCall(count) { try await stubProvider.request(.item).statusCode }
            },
            .init(name: "distinct") {
                // Numbers from a million up: the path's length stays that of the floor's.
                var number = 1_000_000
                return try await Timing.perCall(count) {
                    number += 1
                    return try await transportProvider.request(.numbered(number)).statusCode
                }
            },
            .init(name: "telemetry") {
                try await Timing.perCall(count) { try await telemetryProvider.request(.item).statusCode }
            },
            .init(name: "response") { Timing.perCall(count) { Self.buildResponse() } },
            .init(name: "decode") { try Timing.perCall(count) { try Self.decodeBody() } },
            .init(name: "task") { await Timing.perCall(count / 4) { await Self.createAndAwaitTask() } },
            .init(name: "completion") {
                await Timing.perCall(count / 4) { await Self.completionForm(transportProvider, queue: callbackQueue) }
            },
        ]
        // Warm-up: caches, lazy Foundation state, the allocator.
        for variant in variants { _ = try await variant.round() }
        let samples = try await Interleaved.run(rounds: rounds, variants)
        // CPU time of the measuring thread where valid (see PerCall), wall clock otherwise.
        // (The Task and completion-handler loops hop threads by design: wall clock only.)
        let cpuValid = ["floor", "pipeline", "stub", "distinct", "telemetry", "response", "decode"].allSatisfy { name in
            samples[name]!.allSatisfy { $0.cpu != nil }
        }
        func best(_ name: String) -> [Double] { samples[name]!.map { cpuValid ? $0.best : $0.wall } }
        func wall(_ name: String) -> [Double] { samples[name]!.map(\.wall) }

        let floor = Summary(best("floor"))
        let pipeline = Summary(best("pipeline"))
        let stub = Summary(best("stub"))
        let pipelineRatio = Summary.ratios(best("pipeline"), best("floor"))
        let stubRatio = Summary.ratios(best("stub"), best("floor"))
        let distinctRatio = Summary.ratios(best("distinct"), best("floor"))
        let telemetry = Summary(best("telemetry"))
        let telemetryCost = Summary(zip(best("telemetry"), best("pipeline")).map { $0 - $1 })
        let response = Summary(best("response"))
        let decode = Summary(best("decode"))
        let task = Summary(wall("task"))
        let completion = Summary(wall("completion"))

        var result = ScenarioResult()
        result.set("pipeline_us_per_request", pipeline)
        result.set("stub_us_per_request", stub)
        result.set("pipeline_floor_us", floor)
        result.set("pipeline_floor_ratio", pipelineRatio)
        result.set("stub_floor_ratio", stubRatio)
        result.set("pipeline_distinct_paths_us_per_request", Summary(best("distinct")))
        result.set("pipeline_distinct_paths_floor_ratio", distinctRatio)
        result.set("pipeline_clock", cpuValid ? "thread_cpu" : "wall")
        result.set("pipeline_telemetry_us_per_request", telemetry)
        result.set("pipeline_telemetry_us", telemetryCost)
        result.set("pipeline_wall_us_per_request", Summary(wall("pipeline")))
        result.set("stub_wall_us_per_request", Summary(wall("stub")))
        result.set("pipeline_floor_wall_us", Summary(wall("floor")))
        result.set("pipeline_floor_wall_ratio", Summary.ratios(wall("pipeline"), wall("floor")))
        result.set("stub_floor_wall_ratio", Summary.ratios(wall("stub"), wall("floor")))
        result.set("reference_http_url_response_us", response)
        result.set("reference_json_decode_55_bytes_us", decode)
        result.set("reference_task_create_await_wall_us", task)
        result.set("completion_handler_wall_us_per_request", completion)
        result.set("pipeline_requests_per_round", count)
        result.set("pipeline_rounds", rounds)

        let scenario = "Pipeline overhead"
        result.rows = [
            Row(
                scenario: scenario, metric: "floor: build URLRequest (URL, method, 1 header)",
                measured: floor.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "Provider + in-memory transport, 3 plugins",
                measured: pipeline.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "  ÷ floor", measured: pipelineRatio.formatted(2, unit: "×"),
                target: "≤ \(Self.pipelineTarget)×",
                verdict: pipelineRatio.median <= Self.pipelineTarget ? .met : .missed),
            Row(
                scenario: scenario, metric: "  the same, a path not sent before on every request",
                measured: Summary(best("distinct")).formatted(2, unit: "µs")),
            Row(scenario: scenario, metric: "  ÷ floor", measured: distinctRatio.formatted(2, unit: "×")),
            Row(
                scenario: scenario, metric: "  with a TelemetryPlugin (no-op telemetry): added per request",
                measured: telemetryCost.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "Provider + immediatelyStub, 3 plugins",
                measured: stub.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "  ÷ floor", measured: stubRatio.formatted(2, unit: "×"),
                target: "≤ \(Self.stubTarget)×", verdict: stubRatio.median <= Self.stubTarget ? .met : .missed),
            Row(
                scenario: scenario, metric: "reference: HTTPURLResponse init",
                measured: response.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "reference: JSONDecoder, 55-byte object",
                measured: decode.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "reference: create and await a Task (wall)",
                measured: task.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "completion-handler form, callbacks on a serial queue (wall)",
                measured: completion.formatted(2, unit: "µs")),
        ]
        result.notes.append(
            "Pipeline: \(rounds) interleaved rounds of \(Format.integer(count)) sequential requests per variant, "
                + "awaited one after the other in one task; "
                + (cpuValid
                    ? "µs are the measuring thread's CPU time (wall-clock figures are in the JSON)."
                    : "µs are wall-clock time (a loop changed threads, so CPU time was not usable)."))
        return result
    }

    // MARK: The floor and the references

    /// What any client must build for this request: the URL, the method and one header.
    @inline(never)
    static func buildFloorRequest() -> Int {
        var request = URLRequest(url: URL(string: PipelineAPI.itemURLString)!)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        blackHole(request)
        return 1
    }

    static let responseURL = URL(string: PipelineAPI.itemURLString)!

    @inline(never)
    static func buildResponse() -> Int {
        let response = HTTPURLResponse(url: responseURL, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)
        blackHole(response)
        return 1
    }

    struct Item: Decodable {
        let id: Int
        let name: String
        let email: String
    }

    @inline(never)
    static func decodeBody() throws -> Int {
        try JSONDecoder().decode(Item.self, from: smallJSONBody).id
    }

    @inline(never)
    static func createAndAwaitTask() async -> Int {
        await Task { 1 }.value
    }

    /// Moya's form: `request(_:callbackQueue:completion:)` starts a task and calls back on the
    /// queue; awaited here so that requests run one after the other.
    @inline(never)
    static func completionForm(_ provider: Provider<PipelineAPI>, queue: DispatchQueue) async -> Int {
        await withCheckedContinuation { continuation in
            provider.request(.item, callbackQueue: queue) { result in
                continuation.resume(returning: (try? result.get())?.statusCode ?? 0)
            }
        }
    }
}

/// Telemetry that records nothing: what the pipeline's own telemetry work costs.
struct NoOpTelemetry: RequestTelemetry {
    func attemptStarted(_ attempt: TelemetryAttempt) -> any TelemetrySpan { NoOpSpan() }
}

/// A span that records nothing.
struct NoOpSpan: TelemetrySpan {
    func end(_ outcome: TelemetryOutcome) {}
}
