import Foundation

// Without the CurlTransport trait (see Package.swift) there is no CurlTransport to measure.
#if CurlTransport

import CourierCurl

/// `CourierCurlBenchmarks --nginx-port PORT [--tls-port PORT --certificate PEM] [--quick] [--json FILE]`
///
/// The loopback scenario of the root package's CourierBenchmarks, through ``CurlTransport``:
/// raw `URLSession.data(for:)`, Courier's `Provider` on `URLSessionTransport`, and `Provider`
/// on `CurlTransport`, in interleaved rounds against the same nginx — over plain HTTP/1.1
/// (`loopback_…` keys) and, with `--tls-port`, over HTTPS with HTTP/2 (`https_…` keys; raw
/// `URLSession` must trust `--certificate` through the system's bundle, which `scripts/bench`
/// arranges in a mount namespace of this process's own). `scripts/bench` builds it with the
/// `CurlTransport` trait, runs it after the root benchmark and merges its keys into the same
/// JSON file.
@main
enum CourierCurlBenchmarks {
    static func main() async {
        let environment = ProcessInfo.processInfo.environment
        var port = environment["COURIER_BENCH_NGINX_PORT"].flatMap { Int($0) }
        var tlsPort = environment["COURIER_BENCH_NGINX_TLS_PORT"].flatMap { Int($0) }
        var certificate = environment["COURIER_BENCH_NGINX_CERTIFICATE"]
        var quick = false
        var jsonPath: String?
        var arguments = Array(CommandLine.arguments.dropFirst())[...]
        while let argument = arguments.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--json": jsonPath = arguments.popFirst()
            case "--nginx-port": port = arguments.popFirst().flatMap { Int($0) }
            case "--tls-port": tlsPort = arguments.popFirst().flatMap { Int($0) }
            case "--certificate": certificate = arguments.popFirst()
            default:
                FileHandle.standardError.write(Data("error: unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
        guard let port, (1...65535).contains(port) else {
            FileHandle.standardError.write(
                Data("error: --nginx-port PORT (or COURIER_BENCH_NGINX_PORT) is needed\n".utf8))
            exit(2)
        }
        let status = NginxStatus(url: URL(string: "http://127.0.0.1:\(port)/nginx_status")!)
        var scenarios = [
            CurlLoopbackScenario(
                base: URL(string: "http://127.0.0.1:\(port)")!, prefix: "loopback", label: "Loopback, curl",
                curlConfiguration: CurlTransport.Configuration(), status: status,
                sequentialRounds: quick ? 6 : 25, sequentialPerRound: quick ? 100 : 200,
                concurrentRounds: quick ? 4 : 10, concurrentPerRound: quick ? 250 : 500)
        ]
        if let tlsPort, (1...65535).contains(tlsPort), let certificate {
            var configuration = CurlTransport.Configuration()
            configuration.certificateAuthorities = URL(fileURLWithPath: certificate)
            scenarios.append(
                CurlLoopbackScenario(
                    base: URL(string: "https://127.0.0.1:\(tlsPort)")!, prefix: "https", label: "HTTPS h2, curl",
                    curlConfiguration: configuration, status: status,
                    sequentialRounds: quick ? 6 : 25, sequentialPerRound: quick ? 100 : 200,
                    concurrentRounds: quick ? 4 : 10, concurrentPerRound: quick ? 250 : 500))
        }
        var failures = 0
        do {
            for scenario in scenarios {
                let result = try await scenario.run()
                print(result.table + "\n")
                failures += result.failures
                if let jsonPath {
                    try merge(result.values, into: jsonPath)
                    print("JSON merged into \(jsonPath)\n")
                }
            }
            exit(failures == 0 ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Adds `values` to the flat JSON object in `path` (created if missing).
    static func merge(_ values: [(String, Double)], into path: String) throws {
        let url = URL(fileURLWithPath: path)
        var object: [String: Any] = [:]
        if let data = try? Data(contentsOf: url), !data.isEmpty {
            object = (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        }
        for (key, value) in values { object[key] = value }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: url, options: .atomic)
    }
}

#else

/// Built without the CurlTransport trait: says how to build it with it.
@main
enum CourierCurlBenchmarks {
    static func main() {
        FileHandle.standardError.write(
            Data(
                "error: built without CurlTransport; build with `swift build -c release --traits CurlTransport`\n".utf8)
        )
        exit(2)
    }
}

#endif
