import Foundation

/// What ``ConsoleTelemetry``'s summary mode gathers between two summaries: per span name, the
/// count, the errors by `error.type` and the durations (for percentiles), and the counters'
/// additions; ``take()`` hands it over and starts the next interval.
final class ConsoleSummary: Sendable {
    /// The most durations kept per span name and interval; past it, a uniform sample of them
    /// (reservoir sampling), so that memory stays bounded however busy the interval.
    static let sampleLimit = 4096

    struct Route: Sendable {
        var count = 0
        var errors: [String: Int] = [:]
        var durations: [Double] = []
    }

    struct Interval: Sendable {
        var routes: [String: Route] = [:]
        var counters: [String: Int] = [:]
    }

    private let current = Locked(Interval())
    /// The task that prints a summary at each tick; cancelled when the summary goes away.
    let ticker = Locked<Task<Void, Never>?>(nil)

    deinit {
        ticker.value?.cancel()
    }

    /// Adds an attempt that ended.
    func record(spanName: String, duration: Double, errorType: String?) {
        current.withValue { interval in
            var route = interval.routes[spanName, default: Route()]
            route.count += 1
            if let errorType { route.errors[errorType, default: 0] += 1 }
            if route.durations.count < Self.sampleLimit {
                route.durations.append(duration)
            } else {
                let slot = Int.random(in: 0..<route.count)
                if slot < Self.sampleLimit { route.durations[slot] = duration }
            }
            interval.routes[spanName] = route
        }
    }

    /// Adds `value` to the counter series `series` (its name and attributes).
    func add(_ value: Int, to series: String) {
        current.withValue { $0.counters[series, default: 0] += value }
    }

    /// What was gathered since the last call; the next interval starts empty.
    func take() -> Interval {
        current.withValue { interval in
            defer { interval = Interval() }
            return interval
        }
    }

    /// The summary's lines for `interval`, which lasted `seconds`: a head line, one line per
    /// span name (sorted) and one per counter series.
    static func lines(of interval: Interval, seconds: Double) -> [String] {
        let requests = interval.routes.values.reduce(0) { $0 + $1.count }
        let errors = interval.routes.values.reduce(0) { $0 + $1.errors.values.reduce(0, +) }
        var lines = [
            "summary \(String(format: "%.1f", seconds)) s: \(requests) requests, \(errors) errors"
        ]
        for (name, route) in interval.routes.sorted(by: { $0.key < $1.key }) {
            lines.append("summary \(name): " + describe(route))
        }
        for (series, value) in interval.counters.sorted(by: { $0.key < $1.key }) {
            lines.append("summary \(series) +\(value)")
        }
        return lines
    }

    /// `12 requests, 1 errors (timeout: 1), p50 1.0 ms p90 2.0 ms p99 3.0 ms max 3.1 ms`.
    private static func describe(_ route: Route) -> String {
        let errorCount = route.errors.values.reduce(0, +)
        var text = "\(route.count) requests, \(errorCount) errors"
        if errorCount > 0 {
            let kinds = route.errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            text += " (" + kinds.joined(separator: ", ") + ")"
        }
        let sorted = route.durations.sorted()
        guard let longest = sorted.last else { return text }
        let quantiles = [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)].map { name, quantile in
            "\(name) \(ConsoleTelemetry.milliseconds(percentile(quantile, of: sorted)))"
        }
        return text + ", " + quantiles.joined(separator: " ") + " max " + ConsoleTelemetry.milliseconds(longest)
    }

    /// The nearest-rank percentile of `sorted` (not empty, ascending).
    static func percentile(_ quantile: Double, of sorted: [Double]) -> Double {
        let rank = Int((quantile * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
