/// Keeps a value alive and opaque to the optimizer, so the work that produced it cannot be
/// removed.
@inline(never) @_optimize(none)
func blackHole<T>(_ value: T) {}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

/// Timing loops. Each returns microseconds per operation for one round.
enum Timing {
    /// Runs `body` `count` times in the calling task and returns µs per call.
    static func microsecondsPerCall(_ count: Int, _ body: () throws -> Int) rethrows -> Double {
        var sink = 0
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<count {
            sink &+= try body()
        }
        let elapsed = start.duration(to: clock.now)
        blackHole(sink)
        return elapsed.seconds / Double(count) * 1e6
    }

    /// Awaits `body` `count` times, one after the other in the calling task (no task per
    /// call), and returns µs per call.
    static func microsecondsPerCall(_ count: Int, _ body: () async throws -> Int) async rethrows -> Double {
        var sink = 0
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<count {
            sink &+= try await body()
        }
        let elapsed = start.duration(to: clock.now)
        blackHole(sink)
        return elapsed.seconds / Double(count) * 1e6
    }

    /// Seconds that `body` takes.
    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        return start.duration(to: clock.now).seconds
    }
}

/// Runs several variants in interleaved rounds — A B C, then B C A, then C A B … — so that a
/// slow spell of the machine hits every variant alike, and returns each variant's samples
/// in round order.
enum Interleaved {
    struct Variant {
        let name: String
        let round: () async throws -> Double
    }

    static func run(rounds: Int, _ variants: [Variant]) async throws -> [String: [Double]] {
        var samples: [String: [Double]] = [:]
        for round in 0..<rounds {
            for offset in 0..<variants.count {
                let variant = variants[(round + offset) % variants.count]
                samples[variant.name, default: []].append(try await variant.round())
            }
        }
        return samples
    }
}
