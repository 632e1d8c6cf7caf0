import Courier
import CourierTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Peak memory of a 200 MiB gzip bomb (about 200 KiB on the wire) against the default 32 MiB
/// in-memory bound of `URLSessionTransport`, on a machine made busy on purpose: each run is a
/// fresh child process in which spinning threads compete with the transport for the cores.
struct BombMemoryScenario {
    let megabytes: Int
    let spinners: Int
    let runs: Int

    func run() async throws -> ScenarioResult {
        var growths: [Double] = []
        var held: [Double] = []
        for _ in 0..<runs {
            let child = try ChildProcess.run([
                "--child", "bomb-memory", "--child-count", String(megabytes * 1000 + spinners),
            ])
            guard try child.number("failed_at_bound") == 1 else {
                throw StormFailure(description: "the bomb did not fail with dataLengthExceedsMaximum")
            }
            growths.append(try child.number("peak_growth_mib"))
            held.append(try child.number("largest_body_held_mib"))
        }
        let growth = Summary(growths)
        let bound = Double(URLSessionTransport.defaultMaximumResponseBodySize) / 1_048_576
        // The body kept up to the bound (Data grows by doubling: up to one copy of it more while
        // it grows) and libcurl's and the session's own buffers.
        let target = bound * 2
        var result = ScenarioResult()
        result.set("bomb_peak_growth_mib", growth)
        result.set("bomb_largest_body_held_mib", Summary(held))
        result.set("bomb_mib", megabytes)
        result.set("bomb_spinners", spinners)
        result.rows = [
            Row(
                scenario: "Gzip bomb, busy machine",
                metric: "peak RSS growth, \(megabytes) MiB bomb, \(Int(bound)) MiB bound, \(spinners) spinning threads",
                measured: growth.formatted(1, unit: "MiB"), target: "≤ \(Int(target)) MiB in every run",
                verdict: growth.max <= target ? .met : .missed),
            Row(
                scenario: "Gzip bomb, busy machine", metric: "  most of the body held at once (transport's count)",
                measured: Summary(held).formatted(2, unit: "MiB")),
        ]
        result.notes.append(
            "Gzip bomb: VmHWM of a fresh child process minus its VmRSS before a GET of /hostile/gzip-bomb "
                + "(\(megabytes) MiB of zeros, gzip) through URLSessionTransport() with the default bound, while "
                + "\(spinners) threads spin; \(runs) run(s); every run failed with dataLengthExceedsMaximum.")
        return result
    }
}

/// The child side of ``BombMemoryScenario``.
enum BombMemoryChild {
    struct Bomb: TargetType {
        let base: URL
        let bytes: Int
        var baseURL: URL { base }
        var path: String { "hostile/gzip-bomb" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestParameters(parameters: ["size": bytes], encoding: URLEncoding.queryString) }
        var headers: [String: String]? { nil }
    }

    /// `count` is `megabytes * 1000 + spinners`.
    static func run(count: Int) async throws -> [String: Double] {
        let megabytes = count / 1000
        let spinners = count % 1000
        let server = try await TestServer.start()
        defer { server.stop() }
        let transport = URLSessionTransport()
        let provider = Provider<Bomb>(transport: transport)
        // Let the server build the bomb once (a transport that gives up after a byte holds
        // nothing of it), and warm up the session and its connection.
        let impatient = URLSessionTransport(
            configuration: URLSessionTransport.defaultConfiguration(), maximumResponseBodySize: 1)
        _ = try? await Provider<Bomb>(transport: impatient).request(Bomb(base: server.baseURL, bytes: megabytes << 20))
        _ = try await provider.request(Bomb(base: server.baseURL, bytes: 1024))
        let spinning = Spinners(count: spinners)
        defer { spinning.stop() }
        let before = Double(ProcessMemory.residentBytes() ?? 0) / 1_048_576
        var failedAtBound = false
        do {
            _ = try await provider.request(Bomb(base: server.baseURL, bytes: megabytes << 20))
        } catch {
            failedAtBound = (error.underlyingError as? URLError)?.code == .dataLengthExceedsMaximum
        }
        let after = Double(ProcessMemory.peakResidentBytes() ?? 0) / 1_048_576
        return [
            "peak_growth_mib": after - before, "failed_at_bound": failedAtBound ? 1 : 0,
            "largest_body_held_mib": Double(transport.largestBodyHeld) / 1_048_576,
        ]
    }

    /// Threads that keep the cores busy until stopped.
    final class Spinners: Sendable {
        private let running = Locked(true)

        init(count: Int) {
            for _ in 0..<count {
                let thread = Thread { [running] in
                    var value: UInt64 = 1
                    while running.value {
                        for _ in 0..<100_000 { value = value &* 6_364_136_223_846_793_005 &+ 1 }
                    }
                    if value == 0 { print("") }
                }
                thread.start()
            }
        }

        func stop() { running.withValue { $0 = false } }
    }
}
