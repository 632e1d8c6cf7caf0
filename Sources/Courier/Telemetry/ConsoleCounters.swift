/// The counters' totals that ``ConsoleTelemetry`` keeps, per series (a name and its
/// attributes as text).
final class ConsoleCounters: Sendable {
    private let totals = Locked<[String: Int]>([:])

    /// Adds `value` to `series`.
    func add(_ value: Int, to series: String) {
        totals.withValue { $0[series, default: 0] += value }
    }

    /// One line per series, sorted: `<series> <total>`.
    func lines() -> [String] {
        totals.value.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
    }
}
