import Foundation

/// The rows and JSON keys of a freshness measurement — a signed request on a shared store
/// against the same on a store of its own, and the check alone — written once for the file
/// store (cross-process) and the PostgreSQL store (fleet).
struct FreshnessReport {
    /// The table's scenario name.
    let scenario: String
    /// The JSON keys' prefix (`crossprocess`, `fleet`).
    let keyPrefix: String
    /// The shared store's variant name in the samples, and its JSON and row names.
    let storeVariant: String
    let storeKey: String
    let storeLabel: String
    /// What the check alone is, for its row.
    let checkLabel: String
    /// The target for the added cost, in µs.
    let target: Double

    /// Adds the rows and keys for `samples` (variants `storeVariant`, `own` and `check`).
    func add(_ samples: [String: [PerCall]], to result: inout ScenarioResult) {
        let cpuValid = samples.values.allSatisfy { $0.allSatisfy { $0.cpu != nil } }
        func best(_ name: String) -> [Double] { samples[name]!.map { cpuValid ? $0.best : $0.wall } }
        let added = Summary(zip(best(storeVariant), best("own")).map { $0 - $1 })
        let check = Summary(best("check"))
        result.set("\(keyPrefix)_freshness_us", added)
        result.set("\(keyPrefix)_freshness_check_us", check)
        result.set("\(keyPrefix)_signed_request_\(storeKey)_store_us", Summary(best(storeVariant)))
        result.set("\(keyPrefix)_signed_request_own_store_us", Summary(best("own")))
        result.set("\(keyPrefix)_freshness_clock", cpuValid ? "thread_cpu" : "wall")
        result.rows += [
            Row(
                scenario: scenario, metric: "signed request, session on a \(storeLabel)",
                measured: Summary(best(storeVariant)).formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "signed request, session on a store of its own",
                measured: Summary(best("own")).formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "  added by the generation check, per signed request",
                measured: added.formatted(2, unit: "µs"), target: "≤ \(target) µs",
                verdict: added.median <= target ? .met : .missed),
            Row(
                scenario: scenario, metric: "  the check alone (\(checkLabel))",
                measured: check.formatted(3, unit: "µs")),
        ]
    }

    /// How the figures were measured, for the notes.
    static func clockNote(_ samples: [String: [PerCall]]) -> String {
        samples.values.allSatisfy { $0.allSatisfy { $0.cpu != nil } }
            ? "the measuring thread's CPU time." : "wall-clock time (a loop changed threads)."
    }
}
