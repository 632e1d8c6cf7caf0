import Foundation

/// A ``RequestTelemetry`` for development: prints one line per span as it ends and keeps the
/// `http.client.request.duration` histogram, which ``printHistogram()`` prints.
///
/// ```swift
/// let console = ConsoleTelemetry()
/// let provider = Provider<Shop>(plugins: [TelemetryPlugin(console)])
/// // span GET orders/{id} 200 12.4 ms http.request.method=GET server.address=shop.example.com …
/// console.printHistogram()
/// // http.client.request.duration http.request.method=GET … count 3 sum 31.2 ms | ≤ 10 ms: 1 | ≤ 25 ms: 2
/// ```
///
/// It sends no `traceparent`. Give `output` to send the lines elsewhere (a logger, or a test's
/// array); it is called from the thread that ends the attempt. Copies of a `ConsoleTelemetry`
/// share one histogram.
public struct ConsoleTelemetry: RequestTelemetry {
    /// Receives each line.
    public let output: @Sendable (String) -> Void
    private let histogram = DurationHistogram()

    /// A console exporter.
    ///
    /// - Parameter output: receives each line; prints it by default.
    public init(output: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.output = output
    }

    /// Starts a span that prints itself when it ends.
    public func attemptStarted(_ attempt: TelemetryAttempt) -> any TelemetrySpan {
        ConsoleSpan(attempt: attempt, output: output)
    }

    /// Adds a sample to the histogram.
    public func recordRequestDuration(_ seconds: Double, attributes: [String: TelemetryValue]) {
        histogram.record(seconds, series: Self.text(of: attributes))
    }

    /// Prints the histogram: one line per set of attributes, with the count, the sum and the
    /// non-empty buckets (OpenTelemetry's default boundaries for the metric, in seconds).
    public func printHistogram() {
        for line in histogram.lines() {
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
