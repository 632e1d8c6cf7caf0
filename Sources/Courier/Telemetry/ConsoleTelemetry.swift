import Foundation

/// A ``RequestTelemetry`` for the console: prints one line per span as it ends, or — for a
/// service under load — a summary per interval, and keeps the `http.client.request.duration`
/// histogram, which ``printHistogram()`` prints, and the counters, which ``printCounters()``
/// prints.
///
/// ```swift
/// let console = ConsoleTelemetry()
/// let provider = Provider<Shop>(plugins: [TelemetryPlugin(console)])
/// // span GET orders/{id} 200 12.4 ms http.request.method=GET server.address=shop.example.com …
/// console.printHistogram()
/// // http.client.request.duration http.request.method=GET … count 3 sum 31.2 ms | ≤ 10 ms: 1 | ≤ 25 ms: 2
/// ```
///
/// ``init(summaryEvery:clock:output:)`` prints a few lines per interval instead of one per
/// request: the requests and errors per span name, with latency percentiles, and what the
/// counters (``TelemetryCounter``) gained.
///
/// It sends no `traceparent`. Give `output` to send the lines elsewhere (a logger, or a test's
/// array); it is called from the thread that ends the attempt (in summary mode, from the task
/// that prints the summaries). Copies of a `ConsoleTelemetry` share one histogram, one set of
/// counters and one summary.
public struct ConsoleTelemetry: RequestTelemetry {
    /// Receives each line.
    public let output: @Sendable (String) -> Void
    private let histogram = DurationHistogram()
    private let counters = ConsoleCounters()
    /// Gathers the attempts between summaries; `nil` when each span prints a line.
    private let summary: ConsoleSummary?

    /// A console exporter that prints a line per span.
    ///
    /// - Parameter output: receives each line; prints it by default.
    public init(output: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.output = output
        self.summary = nil
    }

    /// A console exporter that prints a summary every `interval` instead of a line per span:
    ///
    /// ```text
    /// summary 10.0 s: 4428 requests, 3 errors
    /// summary GET orders/{id}: 4400 requests, 3 errors (timeout: 3), p50 1.9 ms p90 4.1 ms p99 12.0 ms max 61.3 ms
    /// summary GET cart: 28 requests, 0 errors, p50 2.2 ms p90 3.0 ms p99 3.4 ms max 3.4 ms
    /// summary courier.auth.refreshes courier.auth.outcome=refreshed courier.auth.source=this_session +1
    /// ```
    ///
    /// The first line counts every attempt of the interval; then one line per span name
    /// (`{method} {route}`) with its attempts, its errors by `error.type` and its latency
    /// percentiles (nearest rank; past 4,096 attempts of one span name in an interval, of a
    /// uniform sample of them), then one line per counter series that grew. An interval with
    /// no attempt prints its first line only. The summaries stop when the last copy of this
    /// value is released.
    ///
    /// - Parameters:
    ///   - interval: how often a summary is printed; at least 100 ms (a shorter one, zero or
    ///     negative, is taken as 100 ms).
    ///   - clock: the clock that times the interval (a test's clock, to drive it).
    ///   - output: receives each line; prints it by default.
    public init<C: Clock<Duration>>(
        summaryEvery interval: Duration, clock: C, output: @escaping @Sendable (String) -> Void = { print($0) }
    ) {
        self.output = output
        // A zero or negative interval would print summaries in a busy loop.
        let interval = max(interval, Self.shortestSummaryInterval)
        let summary = ConsoleSummary()
        self.summary = summary
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        summary.ticker.setValue(
            Task { [weak summary] in
                while !Task.isCancelled {
                    do {
                        try await clock.sleep(for: interval)
                    } catch {
                        return
                    }
                    guard let summary else { return }
                    for line in ConsoleSummary.lines(of: summary.take(), seconds: seconds) {
                        output(line)
                    }
                }
            })
    }

    /// The shortest interval between summaries.
    static let shortestSummaryInterval: Duration = .milliseconds(100)

    /// A console exporter that prints a summary every `interval` of the continuous clock; see
    /// ``init(summaryEvery:clock:output:)``.
    public init(summaryEvery interval: Duration, output: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.init(summaryEvery: interval, clock: ContinuousClock(), output: output)
    }

    /// Starts a span that prints itself when it ends (in summary mode, that is gathered into
    /// the next summary).
    public func attemptStarted(_ attempt: TelemetryAttempt) -> any TelemetrySpan {
        if let summary {
            return SummarySpan(spanName: attempt.spanName, summary: summary)
        }
        return ConsoleSpan(attempt: attempt, output: output)
    }

    /// Adds a sample to the histogram.
    public func recordRequestDuration(_ seconds: Double, attributes: [String: TelemetryValue]) {
        histogram.record(seconds, series: Self.text(of: attributes))
    }

    /// Adds to a counter: to its total, which ``printCounters()`` prints, and in summary mode to
    /// the next summary.
    public func addToCounter(_ name: String, _ value: Int, attributes: [String: TelemetryValue]) {
        let series = attributes.isEmpty ? name : name + " " + Self.text(of: attributes)
        counters.add(value, to: series)
        summary?.add(value, to: series)
    }

    /// Prints the histogram: one line per set of attributes, with the count, the sum and the
    /// non-empty buckets (OpenTelemetry's default boundaries for the metric, in seconds).
    public func printHistogram() {
        for line in histogram.lines() {
            output(line)
        }
    }

    /// Prints each counter series' total so far, one line each, sorted:
    /// `courier.request.replays http.request.method=GET … 3`.
    public func printCounters() {
        for line in counters.lines() {
            output(line)
        }
    }

    /// `key=value` pairs, sorted by key.
    static func text(of attributes: [String: TelemetryValue]) -> String {
        attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// `12.4 ms`.
    static func milliseconds(_ seconds: Double) -> String {
        String(format: "%.1f ms", seconds * 1000)
    }
}

/// One attempt's span, printed as one line when it ends.
private struct ConsoleSpan: TelemetrySpan {
    let attempt: TelemetryAttempt
    let output: @Sendable (String) -> Void

    func end(_ outcome: TelemetryOutcome) {
        let attributes = attempt.attributes.merging(outcome.attributes) { _, outcome in outcome }
        let status = outcome.attributes[TelemetryKey.statusCode]?.description ?? "no answer"
        let error = outcome.isError ? " ERROR" : ""
        let duration = ConsoleTelemetry.milliseconds(outcome.duration)
        output("span \(attempt.spanName) \(status) \(duration)\(error) \(ConsoleTelemetry.text(of: attributes))")
    }
}

/// One attempt's span in summary mode: gathered into the next summary when it ends.
private struct SummarySpan: TelemetrySpan {
    let spanName: String
    let summary: ConsoleSummary

    func end(_ outcome: TelemetryOutcome) {
        let errorType = outcome.isError ? (outcome.attributes[TelemetryKey.errorType]?.description ?? "error") : nil
        summary.record(spanName: spanName, duration: outcome.duration, errorType: errorType)
    }
}
