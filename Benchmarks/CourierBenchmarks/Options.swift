import Foundation

/// Command-line options.
struct Options: Sendable {
    /// The scenarios, in the order they run.
    enum Scenario: String, CaseIterable, Sendable {
        case pipeline, loopback, storm, gatedstorm, crossprocess, fleetstorm, queue, soak, upload, faultsoak, bomb,
            redaction, dpop, idleclose
    }

    var quick = false
    var jsonPath: String?
    var nginxPort: Int?
    var scenarios: [Scenario] = Scenario.allCases
    /// Internal: run one measurement in this (child) process and print its result.
    var child: String?
    /// Internal: how many requests the child measurement queues.
    var childCount = 10_000
    /// For profilers (`perf stat`, callgrind): run one pipeline variant this many times and
    /// nothing else.
    var spin: (variant: String, count: Int)?

    static let usage = """
        usage: CourierBenchmarks [--quick] [--json FILE] [--nginx-port PORT] [--only NAME,…]

          --quick            a shortened version of every scenario (under 2 minutes in all)
          --json FILE        also write the results as one flat JSON object to FILE
          --nginx-port PORT  the port of a local nginx serving /small.json (scripts/bench
                             starts one); also read from COURIER_BENCH_NGINX_PORT. Without
                             it the loopback scenario is skipped.
          --only NAMES       run only these scenarios: \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))

        The usual way to run everything: scripts/bench [--quick] [--json FILE]

        For profilers: --spin floor|pipeline|stub|telemetry|dpop|dpop-bearer COUNT runs only that loop, COUNT times;
        so does --spin freshness-file|freshness-own|freshness-check COUNT (the freshness check);
        --spin freshness-table ROUNDS measures the freshness check alone and prints its rows.
        """

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Options {
        var options = Options()
        if let port = environment["COURIER_BENCH_NGINX_PORT"], !port.isEmpty {
            guard let value = Int(port) else {
                throw Invalid(description: "COURIER_BENCH_NGINX_PORT is not a number: \(port)")
            }
            options.nginxPort = value
        }
        var remaining = arguments[...]
        func value(for flag: String) throws -> String {
            guard let value = remaining.popFirst() else { throw Invalid(description: "\(flag) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": options.quick = true
            case "--json": options.jsonPath = try value(for: argument)
            case "--nginx-port":
                let text = try value(for: argument)
                guard let port = Int(text) else { throw Invalid(description: "--nginx-port is not a number: \(text)") }
                options.nginxPort = port
            case "--only":
                options.scenarios = try value(for: argument).split(separator: ",").map { name in
                    guard let scenario = Scenario(rawValue: String(name)) else {
                        throw Invalid(description: "unknown scenario \(name)")
                    }
                    return scenario
                }
            case "--child": options.child = try value(for: argument)
            case "--child-count":
                let text = try value(for: argument)
                guard let count = Int(text), count > 0 else { throw Invalid(description: "--child-count: \(text)") }
                options.childCount = count
            case "--spin":
                let variant = try value(for: argument)
                let text = try value(for: argument)
                guard let count = Int(text) else { throw Invalid(description: "--spin needs a count: \(text)") }
                options.spin = (variant, count)
            case "--help", "-h": throw Invalid(description: "")
            default: throw Invalid(description: "unknown argument \(argument)")
            }
        }
        return options
    }
}
