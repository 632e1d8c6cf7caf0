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

    func run() async throws -> ScenarioResult {
        let plugins: [any PluginType] = [NoOpPlugin(), NoOpPlugin(), NoOpPlugin()]
        let transportProvider = Provider<PipelineAPI>(
            transport: ImmediateTransport(statusCode: 200, data: smallJSONBody, headers: ["Content-Type": "application/json"]),
            plugins: plugins)
        let stubProvider = Provider<PipelineAPI>(stubClosure: Provider.immediatelyStub, plugins: plugins)
        let count = requestsPerRound

        let variants: [Interleaved.Variant] = [
            .init(name: "floor") { Timing.microsecondsPerCall(count) { Self.buildFloorRequest() } },
            .init(name: "pipeline") {
                try await Timing.microsecondsPerCall(count) { try await transportProvider.request(.item).statusCode }
            },
            .init(name: "stub") {
                try await Timing.microsecondsPerCall(count) { try await stubProvider.request(.item).statusCode }
            },
            .init(name: "response") { Timing.microsecondsPerCall(count) { Self.buildResponse() } },
            .init(name: "decode") { try Timing.microsecondsPerCall(count) { try Self.decodeBody() } },
            .init(name: "task") { await Timing.microsecondsPerCall(count / 4) { await Self.createAndAwaitTask() } },
        ]
        // Warm-up: caches, lazy Foundation state, the allocator.
        for variant in variants { _ = try await variant.round() }
        let samples = try await Interleaved.run(rounds: rounds, variants)

        let floor = Summary(samples["floor"]!)
        let pipeline = Summary(samples["pipeline"]!)
        let stub = Summary(samples["stub"]!)
        let pipelineRatio = Summary.ratios(samples["pipeline"]!, samples["floor"]!)
        let stubRatio = Summary.ratios(samples["stub"]!, samples["floor"]!)
        let response = Summary(samples["response"]!)
        let decode = Summary(samples["decode"]!)
        let task = Summary(samples["task"]!)

        var result = ScenarioResult()
        result.set("pipeline_us_per_request", pipeline)
        result.set("stub_us_per_request", stub)
        result.set("pipeline_floor_us", floor)
        result.set("pipeline_floor_ratio", pipelineRatio)
        result.set("stub_floor_ratio", stubRatio)
        result.set("reference_http_url_response_us", response)
        result.set("reference_json_decode_55_bytes_us", decode)
        result.set("reference_task_create_await_us", task)
        result.set("pipeline_requests_per_round", count)
        result.set("pipeline_rounds", rounds)

        let scenario = "Pipeline overhead"
        result.rows = [
            Row(scenario: scenario, metric: "floor: build URLRequest (URL, method, 1 header)", measured: floor.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "Provider + in-memory transport, 3 plugins",
                measured: pipeline.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "  ÷ floor", measured: pipelineRatio.formatted(2, unit: "×"),
                target: "≤ \(Self.pipelineTarget)×", verdict: pipelineRatio.median <= Self.pipelineTarget ? .met : .missed),
            Row(scenario: scenario, metric: "Provider + immediatelyStub, 3 plugins", measured: stub.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "  ÷ floor", measured: stubRatio.formatted(2, unit: "×"),
                target: "≤ \(Self.stubTarget)×", verdict: stubRatio.median <= Self.stubTarget ? .met : .missed),
            Row(scenario: scenario, metric: "reference: HTTPURLResponse init", measured: response.formatted(2, unit: "µs")),
            Row(scenario: scenario, metric: "reference: JSONDecoder, 55-byte object", measured: decode.formatted(2, unit: "µs")),
            Row(scenario: scenario, metric: "reference: create and await a Task", measured: task.formatted(2, unit: "µs")),
        ]
        result.notes.append(
            "Pipeline: \(rounds) interleaved rounds of \(Format.integer(count)) sequential requests per variant, "
                + "awaited one after the other in one task.")
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
}
