// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One round of one client: wall time, and the process's CPU time and context switches.
struct Sample {
    let requests: Int
    let seconds: Double
    let cpuSeconds: Double
    let switches: Int
    let failures: Int

    var requestsPerSecond: Double { Double(requests) / seconds }
    var cpuMicroseconds: Double { cpuSeconds / Double(requests) * 1e6 }
    var contextSwitches: Double { Double(switches) / Double(requests) }

    static func measure(requests: Int, _ body: () async -> Int) async -> Sample {
        let before = Usage.now()
        let start = DispatchTime.now().uptimeNanoseconds
        let failures = await body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let after = Usage.now()
        return Sample(
            requests: requests, seconds: seconds, cpuSeconds: after.cpu - before.cpu,
            switches: after.switches - before.switches, failures: failures)
    }
}

/// The process's CPU time (user + system) and context switches so far.
struct Usage {
    let cpu: Double
    let switches: Int

    static func now() -> Usage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        return Usage(cpu: cpu, switches: usage.ru_nvcsw + usage.ru_nivcsw)
    }
}

/// The median and the range of a series.
struct Summary {
    let median: Double
    let min: Double
    let max: Double

    init(_ values: [Double]) {
        let sorted = values.sorted()
        if sorted.isEmpty {
            (median, min, max) = (0, 0, 0)
        } else {
            let middle = sorted.count / 2
            median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
            min = sorted[0]
            max = sorted[sorted.count - 1]
        }
    }

    func formatted(_ digits: Int, unit: String) -> String {
        func number(_ value: Double) -> String { String(format: "%.\(digits)f", value) }
        let separator = unit == "×" ? "" : " "
        return "\(number(median))\(separator)\(unit) [\(number(min))–\(number(max))]"
    }
}

#endif
