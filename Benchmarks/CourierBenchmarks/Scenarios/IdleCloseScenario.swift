import Courier
import CourierTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if CurlTransport
    import CourierCurl
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Issue 32 item 7: a process's CPU time while a server's idle close reaches it through a small
/// forwarder (as behind a proxy). Ten providers send three concurrent GETs each every 3 s to an
/// origin that closes connections idle for 2 s (`Tests/Server/idle_close_forwarder.py`), through
/// the forwarder and straight to the origin, with `URLSessionTransport` and (with the
/// `CurlTransport` trait) `CurlTransport`. The figure is the process's CPU time (user + system,
/// `getrusage`) per 3-second round, which includes what the transports' threads burn while the
/// process waits between rounds.
struct IdleCloseScenario {
    let rounds: Int
    static let providers = 10
    static let concurrentPerProvider = 3
    static let roundSeconds = 3.0

    struct API: TargetType {
        let baseURL: URL
        var path: String { "item" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    /// A way to make a provider's transport.
    struct Variant {
        let key: String
        let label: String
        let makeTransport: () -> any HTTPTransport
    }

    func run() async throws -> ScenarioResult {
        let helper = try await HelperServer.start("idle_close_forwarder.py", arguments: ["--idle", "2"])
        defer { helper.stop() }
        let forwarder = URL(string: "http://127.0.0.1:\(try helper.port("forwarder"))")!
        let origin = URL(string: "http://127.0.0.1:\(try helper.port("origin"))")!
        var result = ScenarioResult()
        // URLSessionTransport last, so that anything it leaves running cannot count against
        // another variant.
        var variants: [(Variant, URL, String)] = []
        #if CurlTransport
            let curl = Variant(key: "curl", label: "CurlTransport", makeTransport: { CurlTransport() })
            variants += [(curl, origin, "direct"), (curl, forwarder, "forwarder")]
        #endif
        let session = Variant(key: "urlsession", label: "URLSessionTransport", makeTransport: { URLSessionTransport() })
        variants += [(session, origin, "direct"), (session, forwarder, "forwarder")]
        for (variant, base, path) in variants {
            progress("   \(variant.label) \(path)")
            let (perRound, failures) = try await measure(variant, base: base)
            let summary = Summary(perRound)
            let key = "idleclose_\(variant.key)_\(path)_cpu_s_per_round"
            result.set(key, summary)
            result.set("idleclose_\(variant.key)_\(path)_failures", failures)
            result.rows.append(
                Row(
                    scenario: "Idle close (\(path == "direct" ? "straight to the origin" : "through a forwarder"))",
                    metric: "\(variant.label): process CPU s per 3 s round (median, min–max)",
                    measured: "\(Format.number(summary.median, 3)) (\(Format.number(summary.min, 3))–"
                        + "\(Format.number(summary.max, 3)))"
                        + (failures > 0 ? ", \(failures) failed requests" : "")))
        }
        #if !CurlTransport
            result.notes.append(
                "idle close: CurlTransport not measured (build with --traits CurlTransport, as scripts/bench does)")
        #endif
        return result
    }

    /// CPU seconds of each round after the first (which opens the connections), and how many
    /// requests failed.
    private func measure(_ variant: Variant, base: URL) async throws -> ([Double], Int) {
        let providers = (0..<Self.providers).map { _ in Provider<API>(transport: variant.makeTransport()) }
        var perRound: [Double] = []
        var failures = 0
        let clock = ContinuousClock()
        for round in 0...rounds {
            let started = clock.now
            let cpuBefore = Self.processCPUSeconds()
            failures += await withTaskGroup(of: Int.self) { group in
                for provider in providers {
                    for _ in 0..<Self.concurrentPerProvider {
                        group.addTask {
                            (try? await provider.request(API(baseURL: base)).statusCode) == 200 ? 0 : 1
                        }
                    }
                }
                return await group.reduce(0, +)
            }
            // The rest of the round: the connections go idle and the origin closes them.
            try await Task.sleep(until: started + .seconds(Self.roundSeconds), clock: clock)
            if round > 0 { perRound.append(Self.processCPUSeconds() - cpuBefore) }
        }
        return (perRound, failures)
    }

    /// The process's CPU time so far (user and system, every thread).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
