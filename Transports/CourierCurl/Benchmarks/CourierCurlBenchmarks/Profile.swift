// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Foundation

/// One client of the loopback scenario alone (`--profile`), for a profiler or a quick A/B.
enum Profile {
    /// Runs `spec` (`[https-]client:mode`) for `requests` requests after a warm-up and prints
    /// what each tenth of them cost.
    static func run(_ spec: String, requests: Int, scenarios: [CurlLoopbackScenario]) async {
        let parts = spec.split(separator: ":").map(String.init)
        var name = parts.first ?? ""
        let mode = parts.count > 1 ? parts[1] : "sequential"
        var scenario = scenarios.first
        if name.hasPrefix("https-") {
            name.removeFirst("https-".count)
            scenario = scenarios.first { $0.prefix == "https" }
        }
        guard let scenario, let client = scenario.clients().first(where: { $0.name == name }) else {
            FileHandle.standardError.write(Data("error: no client \(spec)\n".utf8))
            exit(2)
        }
        let concurrent = mode == "concurrent"
        let width = scenario.inFlight
        func round(_ count: Int) async -> Int {
            concurrent ? await client.concurrent(count, width) : await client.sequential(count)
        }
        _ = await client.concurrent(500, width) + client.sequential(500)
        let tenth = max(1, requests / 10)
        var samples: [Sample] = []
        for _ in 0..<10 {
            samples.append(await Sample.measure(requests: tenth) { await round(tenth) })
        }
        let rps = Summary(samples.map(\.requestsPerSecond)).formatted(0, unit: "req/s")
        let cpu = Summary(samples.map(\.cpuMicroseconds)).formatted(1, unit: "µs")
        let switches = Summary(samples.map(\.contextSwitches)).formatted(2, unit: "")
        let failures = samples.map(\.failures).reduce(0, +)
        print("\(spec): \(rps); CPU \(cpu) per request; \(switches) context switches per request; \(failures) failed")
    }
}

#endif
