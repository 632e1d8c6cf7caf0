#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

/// One round of a timing loop: microseconds per call by the wall clock and by the calling
/// thread's CPU time.
struct PerCall: Sendable {
    /// Wall-clock µs per call (`ContinuousClock`).
    let wall: Double
    /// The thread's CPU µs per call (`CLOCK_THREAD_CPUTIME_ID`), or `nil` when the loop did
    /// not stay on one thread. Unlike the wall clock it does not count the time the thread
    /// waited for a core, so it stays meaningful on a machine that is busy with other work.
    let cpu: Double?

    /// The CPU time where valid, else the wall clock.
    var best: Double { cpu ?? wall }
}

/// Timing loops. Each returns the cost per call for one round.
enum Timing {
    /// Runs `body` `count` times in the calling task.
    static func perCall(_ count: Int, _ body: () throws -> Int) rethrows -> PerCall {
        var sink = 0
        let clock = ContinuousClock()
        let thread = pthread_self()
        let cpuStart = threadCPUSeconds()
        let start = clock.now
        for _ in 0..<count {
            sink &+= try body()
        }
        let elapsed = start.duration(to: clock.now)
        let cpu = threadCPUSeconds() - cpuStart
        blackHole(sink)
        return PerCall(
            wall: elapsed.seconds / Double(count) * 1e6,
            cpu: pthread_equal(thread, pthread_self()) != 0 ? cpu / Double(count) * 1e6 : nil)
    }

    /// Awaits `body` `count` times, one after the other in the calling task (no task per
    /// call). When nothing suspends, the loop stays on one thread and its CPU time is valid.
    static func perCall(_ count: Int, _ body: () async throws -> Int) async rethrows -> PerCall {
        var sink = 0
        let clock = ContinuousClock()
        let thread = pthread_self()
        let cpuStart = threadCPUSeconds()
        let start = clock.now
        for _ in 0..<count {
            sink &+= try await body()
        }
        let elapsed = start.duration(to: clock.now)
        let cpu = threadCPUSeconds() - cpuStart
        blackHole(sink)
        return PerCall(
            wall: elapsed.seconds / Double(count) * 1e6,
            cpu: pthread_equal(thread, pthread_self()) != 0 ? cpu / Double(count) * 1e6 : nil)
    }

    /// The calling thread's CPU time in seconds.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
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
    struct Variant<Sample> {
        let name: String
        let round: () async throws -> Sample
    }

    static func run<Sample>(rounds: Int, _ variants: [Variant<Sample>]) async throws -> [String: [Sample]] {
        var samples: [String: [Sample]] = [:]
        for round in 0..<rounds {
            for offset in 0..<variants.count {
                let variant = variants[(round + offset) % variants.count]
                samples[variant.name, default: []].append(try await variant.round())
            }
        }
        return samples
    }
}
