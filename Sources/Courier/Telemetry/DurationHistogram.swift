import Foundation

/// The `http.client.request.duration` samples that ``ConsoleTelemetry`` keeps: for each set
/// of attributes, a count, a sum and explicit buckets.
final class DurationHistogram: Sendable {
    /// OpenTelemetry's default bucket boundaries for `http.client.request.duration`, in
    /// seconds; a last bucket holds what is above them.
    static let boundaries: [Double] = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

    private struct Series: Sendable {
        var count = 0
        var sum = 0.0
        var buckets = [Int](repeating: 0, count: DurationHistogram.boundaries.count + 1)
    }

    private let series = Locked<[String: Series]>([:])

    /// Adds a sample of `seconds` to the series named `series`.
    func record(_ seconds: Double, series name: String) {
        let bucket = Self.boundaries.firstIndex { seconds <= $0 } ?? Self.boundaries.count
        series.withValue { all in
            all[name, default: Series()].count += 1
            all[name, default: Series()].sum += seconds
            all[name, default: Series()].buckets[bucket] += 1
        }
    }

    /// One line per series, sorted: its name, count, sum and non-empty buckets.
    func lines() -> [String] {
        series.value.sorted { $0.key < $1.key }.map { name, series in
            let buckets = series.buckets.enumerated().filter { $0.element > 0 }.map { index, count in
                let bound =
                    index < Self.boundaries.count
                    ? "≤ \(ConsoleTelemetry.milliseconds(Self.boundaries[index]))"
                    : "> \(ConsoleTelemetry.milliseconds(Self.boundaries[Self.boundaries.count - 1]))"
                return "\(bound): \(count)"
            }
            let head =
                "http.client.request.duration \(name) count \(series.count) sum "
                + ConsoleTelemetry.milliseconds(series.sum)
            return ([head] + buckets).joined(separator: " | ")
        }
    }
}
