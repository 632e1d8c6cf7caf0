import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ConsoleTelemetry's summary mode: a few lines per interval instead of one per request, on a
/// clock the test moves.
@Suite(
    "ConsoleTelemetry summary mode: counts, errors and percentiles per span name per interval", .timeLimit(.minutes(20))
)
struct ConsoleSummaryTests {
    let lines = LockIsolated<[String]>([])
    let clock = ManualClock()

    func console() -> ConsoleTelemetry {
        ConsoleTelemetry(summaryEvery: .seconds(10), clock: clock) { [lines] line in lines.withValue { $0.append(line) }
        }
    }

    /// Moves the clock one interval once the summary task sleeps, and returns the lines it
    /// printed (the head line first).
    func tick(expecting count: Int) async throws -> [String] {
        try await clock.waitForSleepers(1)
        let before = lines.value.count
        clock.advance(by: .seconds(10))
        let all = try await lines.wait { $0.count >= before + count }
        return Array(all[before...])
    }

    @Test("no line per request; at each tick the interval's requests and errors per span name, then a fresh interval")
    func summaryPerInterval() async throws {
        let console = console()
        let provider = Provider<TestAPI>(
            transport: ClosureTransport { request in
                let failing = request.urlRequest.url?.path.hasSuffix("/fail") == true
                return Response(statusCode: failing ? 503 : 200, data: Data(), request: request.urlRequest)
            },
            plugins: [TelemetryPlugin(console)])
        for id in 1...3 { _ = try await provider.request(.user(id: id)) }
        _ = try? await provider.request(.failing)
        _ = try? await provider.request(.failing)
        #expect(lines.value.isEmpty, "summary mode prints nothing per request: \(lines.value)")

        let first = try await tick(expecting: 3)
        #expect(first.count == 3, "\(first)")
        #expect(first.first == "summary 10.0 s: 5 requests, 2 errors")
        let user = try #require(first.first { $0.hasPrefix("summary GET TestAPI.user: ") })
        #expect(user.hasPrefix("summary GET TestAPI.user: 3 requests, 0 errors, p50 "))
        #expect(user.contains(" p90 ") && user.contains(" p99 ") && user.contains(" max "))
        let failing = try #require(first.first { $0.contains("TestAPI.failing") })
        #expect(failing.contains(": 2 requests, 2 errors (503: 2), p50 "))

        // The next interval starts empty.
        let second = try await tick(expecting: 1)
        #expect(second == ["summary 10.0 s: 0 requests, 0 errors"])
    }

    @Test("percentiles are the interval's nearest-rank percentiles of the attempts' durations")
    func percentiles() async throws {
        let console = console()
        // 1 ms … 100 ms, in an order that is not sorted.
        for milliseconds in (1...100).shuffled() {
            let span = console.attemptStarted(TelemetryAttempt(spanName: "GET items/{id}", attributes: [:]))
            span.end(
                TelemetryOutcome(
                    attributes: [:], isError: false, duration: Double(milliseconds) / 1000, metrics: nil))
        }
        let printed = try await tick(expecting: 2)
        #expect(
            printed == [
                "summary 10.0 s: 100 requests, 0 errors",
                "summary GET items/{id}: 100 requests, 0 errors, p50 50.0 ms p90 90.0 ms p99 99.0 ms max 100.0 ms",
            ])
    }

    @Test("counters that grew in the interval are in its summary; printCounters prints the totals")
    func countersInSummary() async throws {
        let console = console()
        console.addToCounter(TelemetryCounter.replays, 1, attributes: ["url.template": .string("me")])
        console.addToCounter(TelemetryCounter.replays, 2, attributes: ["url.template": .string("me")])
        let first = try await tick(expecting: 2)
        #expect(
            first == ["summary 10.0 s: 0 requests, 0 errors", "summary courier.request.replays url.template=me +3"])

        console.addToCounter(TelemetryCounter.replays, 1, attributes: ["url.template": .string("me")])
        let second = try await tick(expecting: 2)
        #expect(second.last == "summary courier.request.replays url.template=me +1")

        lines.setValue([])
        console.printCounters()
        #expect(lines.value == ["courier.request.replays url.template=me 4"])
    }

    @Test("a zero interval is taken as 100 ms: no summary before the clock moves that far, one after")
    func zeroInterval() async throws {
        let console = ConsoleTelemetry(summaryEvery: .zero, clock: clock) { [lines] line in
            lines.withValue { $0.append(line) }
        }
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(50))
        try await clock.waitForSleepers(1)
        #expect(lines.value.isEmpty, "a summary before 100 ms: \(lines.value)")
        clock.advance(by: .milliseconds(50))
        let printed = try await lines.wait { !$0.isEmpty }
        #expect(printed == ["summary 0.1 s: 0 requests, 0 errors"])
        _ = console
    }
}
