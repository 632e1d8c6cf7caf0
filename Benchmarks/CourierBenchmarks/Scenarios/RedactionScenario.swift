import Courier
import CourierPlugins
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redaction of a 1 MB nested JSON body: milliseconds per MB through `Redaction` (the JSON
/// redactor), the same body made malformed (the text redactor), a body without any secret,
/// and one verbose `NetworkLoggerPlugin` line for a 1 MB error body.
struct RedactionScenario {
    let rounds: Int
    /// Redactions per round and variant.
    let repetitions: Int

    static let target = 50.0

    /// About 1 MiB: error records nested 600 levels deep, each level with a secret whose
    /// value is an object, a string, a number and a URL that carries a token.
    static let nestedBody: Data = {
        var chunks: [String] = []
        var size = 0
        var record = 0
        while size < 1 << 20 {
            var chunk = ""
            for level in 0..<600 {
                chunk +=
                    #"{"level":\#(level),"name":"record \#(record) level \#(level)","ratio":\#(Double(level) / 7),"#
                    + #""refresh_token":{"value":"DEEP-SECRET-OBJECT","list":[1,2,{"k":"DEEP-SECRET-LIST"}]},"#
                    + (level % 50 == 0
                        ? #""next":"https://api.example.com/p?access_token=DEEP-SECRET-URL&page=2","# : "")
                    + #""child":"#
            }
            chunk += "null" + String(repeating: "}", count: 600)
            chunks.append(chunk)
            size += chunk.utf8.count + 1
            record += 1
        }
        return Data((#"{"error":"invalid_request","records":["# + chunks.joined(separator: ",") + "]}").utf8)
    }()

    /// The same body with a stray character after its first key: not JSON any more.
    static let malformedBody: Data = {
        var bytes = [UInt8](nestedBody)
        bytes.insert(UInt8(ascii: "x"), at: 9)
        return Data(bytes)
    }()

    /// A body of the same shape and size with nothing to hide (returned as it is).
    static let cleanBody: Data = {
        let text = String(decoding: nestedBody, as: UTF8.self)
            .replacingOccurrences(of: "refresh_token", with: "refresh_count")
            .replacingOccurrences(of: "access_token=", with: "access_count=")
        return Data(text.utf8)
    }()

    func run() async throws -> ScenarioResult {
        let redaction = Redaction.default
        let bodies = [
            "json": Self.nestedBody, "text": Self.malformedBody, "clean": Self.cleanBody,
        ]
        var leaks = 0
        for name in ["json", "text"] {
            let redacted = redaction.redact(body: bodies[name]!, contentType: "application/json")
            if String(decoding: redacted, as: UTF8.self).contains("DEEP-SECRET") { leaks += 1 }
        }
        let lines = LoggedLines()
        let logger = NetworkLoggerPlugin(
            configuration: .init(output: { _, items in lines.add(items) }, logOptions: .verbose))
        let errorResponse = Response(
            statusCode: 400, data: Self.nestedBody,
            response: HTTPURLResponse(
                url: URL(string: PipelineAPI.itemURLString)!, statusCode: 400, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json"]))
        logger.didReceive(.success(errorResponse), target: PipelineAPI.item)
        if lines.text.contains("DEEP-SECRET") { leaks += 1 }

        let repetitions = repetitions
        func redactions(_ name: String) -> Interleaved.Variant<PerCall> {
            let body = bodies[name]!
            return .init(name: name) {
                Timing.perCall(repetitions) {
                    redaction.redact(body: body, contentType: "application/json").count
                }
            }
        }
        let variants: [Interleaved.Variant<PerCall>] = [
            redactions("json"), redactions("text"), redactions("clean"),
            .init(name: "logger") {
                Timing.perCall(repetitions) {
                    logger.didReceive(.success(errorResponse), target: PipelineAPI.item)
                    return lines.takeCount()
                }
            },
        ]
        for variant in variants { _ = try await variant.round() }
        let samples = try await Interleaved.run(rounds: rounds, variants)
        let megabytes = Double(Self.nestedBody.count) / 1_000_000
        // Per MB (10⁶ bytes), from µs per call; CPU time of the thread where valid.
        func perMB(_ name: String) -> Summary {
            Summary(samples[name]!.map { $0.best / 1000 / megabytes })
        }
        func wallPerMB(_ name: String) -> Summary {
            Summary(samples[name]!.map { $0.wall / 1000 / megabytes })
        }
        let json = perMB("json")
        let text = perMB("text")
        let clean = perMB("clean")
        let loggerLine = Summary(samples["logger"]!.map { $0.best / 1000 })
        let cpuValid = samples.values.allSatisfy { $0.allSatisfy { $0.cpu != nil } }

        var result = ScenarioResult()
        result.set("redaction_ms_per_mb", json)
        result.set("redaction_wall_ms_per_mb", wallPerMB("json"))
        result.set("redaction_malformed_ms_per_mb", text)
        result.set("redaction_clean_ms_per_mb", clean)
        result.set("redaction_logger_ms_per_line", loggerLine)
        result.set("redaction_body_bytes", Self.nestedBody.count)
        result.set("redaction_leaks", leaks)
        result.set("redaction_clock", cpuValid ? "thread_cpu" : "wall")

        let scenario = "Redaction"
        let size = Format.number(Double(Self.nestedBody.count) / 1_048_576, 2)
        result.rows = [
            Row(
                scenario: scenario, metric: "\(size) MiB JSON nested 600 deep, per MB",
                measured: json.formatted(2, unit: "ms"), target: "≤ \(Format.number(Self.target, 0)) ms",
                verdict: json.median <= Self.target ? .met : .missed),
            Row(
                scenario: scenario, metric: "  the same, malformed (text redactor), per MB",
                measured: text.formatted(2, unit: "ms")),
            Row(
                scenario: scenario, metric: "  the same shape, no secret (returned as is), per MB",
                measured: clean.formatted(2, unit: "ms")),
            Row(
                scenario: scenario, metric: "  verbose NetworkLoggerPlugin, one 1 MB error body",
                measured: loggerLine.formatted(2, unit: "ms")),
            Row(
                scenario: scenario, metric: "  secrets shown (JSON, malformed, logger)", measured: "\(leaks)",
                target: "0", verdict: leaks == 0 ? .met : .missed),
        ]
        result.notes.append(
            "Redaction: \(rounds) interleaved rounds of \(repetitions) redactions per variant of a "
                + "\(Format.integer(Self.nestedBody.count))-byte body; "
                + (cpuValid ? "the measuring thread's CPU time." : "wall-clock time (a loop changed threads)."))
        return result
    }
}

/// Collects what the logger writes, so the line is really built.
private struct LoggedLines: Sendable {
    private let lines = LockIsolated<[String]>([])

    func add(_ items: [String]) {
        lines.withValue { $0 += items }
    }

    var text: String { lines.value.joined(separator: "\n") }

    /// The number of bytes written since the last call, and forgets them.
    func takeCount() -> Int {
        lines.withValue { lines in
            defer { lines.removeAll(keepingCapacity: true) }
            return lines.reduce(0) { $0 + $1.utf8.count }
        }
    }
}
