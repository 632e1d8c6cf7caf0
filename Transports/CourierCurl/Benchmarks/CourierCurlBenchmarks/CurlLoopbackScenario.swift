// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import CourierCurl
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The loopback scenario through four clients — raw `URLSession`, `Provider` on each transport,
/// and a plain libcurl loop without Courier (the limit) — in interleaved rounds (a busy spell
/// of the machine then spoils few rounds, and all clients alike): throughput ratios round by round,
/// the process's CPU time per request for each client, and (when nginx's `stub_status` is
/// given) the connections each client opened.
///
/// Run over plain HTTP/1.1 (keys `loopback_…`) and over HTTPS with HTTP/2 (keys `https_…`).
struct CurlLoopbackScenario {
    /// The nginx to measure: `http://127.0.0.1:<port>` or `https://127.0.0.1:<port>`.
    let base: URL
    /// The first word of every JSON key and the table's label: `loopback` or `https`.
    let prefix: String
    /// The label of the table's rows.
    let label: String
    /// How CurlTransport is set up (the HTTPS run trusts nginx's throw-away certificate).
    let curlConfiguration: CurlTransport.Configuration
    /// nginx's `stub_status`, to count the connections each client opened; `nil`: not counted.
    let status: NginxStatus?
    /// The ratios to raw URLSession that CurlTransport should reach.
    let targets: (sequential: Double, concurrent: Double)
    let sequentialRounds: Int
    let sequentialPerRound: Int
    let concurrentRounds: Int
    let concurrentPerRound: Int
    let inFlight = 32

    /// `value` with its decimals only when it has some.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    struct Result {
        var table = ""
        var values: [(String, Double)] = []
        var failures = 0
    }

    /// One client's rounds: `sequential(n)` sends n requests one after the other,
    /// `concurrent(n, width)` n requests with `width` in flight; each returns its failures.
    struct Client: Sendable {
        let name: String
        let sequential: @Sendable (Int) async -> Int
        let concurrent: @Sendable (Int, Int) async -> Int

        /// A client made of one request (`true` when the answer is right), sent from Swift tasks.
        init(_ name: String, once: @escaping @Sendable () async -> Bool) {
            self.name = name
            sequential = { count in
                var failed = 0
                for _ in 0..<count where await !once() { failed += 1 }
                return failed
            }
            concurrent = { count, width in await CurlLoopbackScenario.concurrent(total: count, width: width, once) }
        }

        init(
            _ name: String, sequential: @escaping @Sendable (Int) async -> Int,
            concurrent: @escaping @Sendable (Int, Int) async -> Int
        ) {
            self.name = name
            self.sequential = sequential
            self.concurrent = concurrent
        }
    }

    /// The small JSON document's length.
    static let expectedLength = #"{"id":42,"name":"Ada Lovelace","email":"ada@example.org"}"#.utf8.count

    /// The clients, in their first round's order.
    func clients() -> [Client] {
        let expected = Self.expectedLength
        let session = URLSession(configuration: URLSessionTransport.defaultConfiguration())
        let url = base.appendingPathComponent("small.json")
        let raw = Client("raw") {
            var request = URLRequest(url: url)
            request.httpMethod = "GET"
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            guard let (data, response) = try? await session.data(for: request) else { return false }
            return (response as? HTTPURLResponse)?.statusCode == 200 && data.count == expected
        }
        let courierURLSession = Provider<SmallJSON>()
        let courierCurl = Provider<SmallJSON>(transport: CurlTransport(configuration: curlConfiguration))
        let target = SmallJSON(baseURL: base)
        let viaURLSession = Client("courier") {
            guard let response = try? await courierURLSession.request(target) else { return false }
            return response.statusCode == 200 && response.data.count == expected
        }
        let viaCurl = Client("curl") {
            guard let response = try? await courierCurl.request(target) else { return false }
            return response.statusCode == 200 && response.data.count == expected
        }
        let plain = PlainCurlClient(
            url: url, expectedLength: expected, certificateAuthorities: curlConfiguration.certificateAuthorities)
        let libcurl = Client(
            "libcurl", sequential: { await plain.sequential($0) }, concurrent: { await plain.concurrent($0, width: $1) }
        )
        return [raw, viaURLSession, viaCurl, libcurl]
    }

    func run() async throws -> Result {
        let clients = clients()
        var failures = 0
        // The connections each client opened, from its first request (cold, 32 at once) to
        // its last: nginx's count of accepted connections around each of its turns.
        var connections: [String: Int] = [:]
        func counting(_ name: String, _ body: () async -> Int) async -> Int {
            let before = await status?.accepted()
            let failed = await body()
            if let before, let after = await status?.accepted() { connections[name, default: 0] += after - before }
            return failed
        }
        // Warm-up: connections, lazy state of every stack.
        for client in clients {
            failures += await counting(client.name) {
                await client.concurrent(500, inFlight) + client.sequential(200)
            }
        }

        var sequential: [String: [Sample]] = [:]
        // The clients take turns, in an order that rotates every round (A B C, B C A, C A B).
        func rotated(_ round: Int) -> [Client] {
            let start = round % clients.count
            return Array(clients[start...]) + Array(clients[..<start])
        }
        for round in 0..<sequentialRounds {
            for client in rotated(round) {
                let sample = await Sample.measure(requests: sequentialPerRound) {
                    await counting(client.name) { await client.sequential(sequentialPerRound) }
                }
                failures += sample.failures
                sequential[client.name, default: []].append(sample)
            }
        }
        var concurrent: [String: [Sample]] = [:]
        for round in 0..<concurrentRounds {
            for client in rotated(round) {
                let sample = await Sample.measure(requests: concurrentPerRound) {
                    await counting(client.name) { await client.concurrent(concurrentPerRound, inFlight) }
                }
                failures += sample.failures
                concurrent[client.name, default: []].append(sample)
            }
        }

        var result = Result()
        result.failures = failures
        func ratio(_ samples: [String: [Sample]], _ over: String, _ under: String) -> Summary {
            Summary(zip(samples[under]!, samples[over]!).map { $0.seconds / $1.seconds })
        }
        // Each ratio sequentially and with `inFlight`, keyed with `MODE` replaced by the mode:
        // CurlTransport over raw URLSession and over Courier on URLSessionTransport; the limit,
        // libcurl alone, and how close CurlTransport comes to it.
        var ratios: [String: (sequential: Summary, concurrent: Summary)] = [:]
        for (key, over, under) in [
            ("curl_MODE_ratio", "curl", "raw"), ("curl_vs_courier_urlsession_MODE", "curl", "courier"),
            ("plain_libcurl_MODE_ratio", "libcurl", "raw"), ("curl_vs_plain_libcurl_MODE", "curl", "libcurl"),
        ] {
            let pair = (ratio(sequential, over, under), ratio(concurrent, over, under))
            ratios[key] = pair
            result.add("\(prefix)_" + key.replacingOccurrences(of: "MODE", with: "sequential"), pair.0)
            result.add("\(prefix)_" + key.replacingOccurrences(of: "MODE", with: "concurrent"), pair.1)
        }
        let (seqRatio, concRatio) = ratios["curl_MODE_ratio"]!
        let (seqLimit, concLimit) = ratios["plain_libcurl_MODE_ratio"]!
        let (seqOfLimit, concOfLimit) = ratios["curl_vs_plain_libcurl_MODE"]!
        for (mode, samples) in [("sequential", sequential), ("concurrent", concurrent)] {
            for name in clients.map(\.name) {
                let series = samples[name]!
                result.add("\(prefix)_curl_run_\(name)_\(mode)_rps", Summary(series.map(\.requestsPerSecond)))
                result.add("\(prefix)_cpu_us_per_request_\(name)_\(mode)", Summary(series.map(\.cpuMicroseconds)))
                result.add(
                    "\(prefix)_context_switches_per_request_\(name)_\(mode)",
                    Summary(series.map(\.contextSwitches)))
            }
        }
        result.values.append(("\(prefix)_curl_failures", Double(failures)))
        result.values.append(("\(prefix)_curl_in_flight", Double(inFlight)))
        for name in clients.map(\.name) {
            if let opened = connections[name] {
                result.values.append(("\(prefix)_connections_\(name)", Double(opened)))
            }
        }
        if let opened = connections["curl"] { result.values.append(("\(prefix)_curl_connections", Double(opened))) }

        func cpu(_ name: String, _ samples: [String: [Sample]]) -> String {
            Summary(samples[name]!.map(\.cpuMicroseconds)).formatted(0, unit: "µs")
        }
        func rps(_ name: String, _ samples: [String: [Sample]]) -> String {
            Summary(samples[name]!.map(\.requestsPerSecond)).formatted(0, unit: "req/s")
        }
        let seqCount = sequentialRounds * sequentialPerRound
        let concCount = concurrentRounds * concurrentPerRound
        var rows: [(String, String, String, String)] = []
        for (mode, samples, count) in [
            ("sequential", sequential, seqCount), ("\(inFlight) in flight", concurrent, concCount),
        ] {
            rows.append(("raw URLSession.data(for:), \(mode) (\(count))", rps("raw", samples), "", ""))
            rows.append(("Courier + URLSessionTransport, \(mode)", rps("courier", samples), "", ""))
            rows.append(("Courier + CurlTransport, \(mode)", rps("curl", samples), "", ""))
            rows.append(("plain libcurl loop (the limit), \(mode)", rps("libcurl", samples), "", ""))
            let isSequential = mode == "sequential"
            let ratio = isSequential ? seqRatio : concRatio
            let target = isSequential ? targets.sequential : targets.concurrent
            rows.append(
                (
                    "  CurlTransport / raw", ratio.formatted(2, unit: "×"), "≥ \(Self.number(target))×",
                    ratio.median >= target ? "met" : "MISSED"
                ))
            rows.append(
                ("  plain libcurl / raw", (isSequential ? seqLimit : concLimit).formatted(2, unit: "×"), "", ""))
            rows.append(
                (
                    "  CurlTransport / plain libcurl",
                    (isSequential ? seqOfLimit : concOfLimit).formatted(2, unit: "×"), "", ""
                ))
            for name in clients.map(\.name) {
                rows.append(("  CPU per request, \(name), \(mode)", cpu(name, samples), "", ""))
            }
        }
        if status != nil {
            for name in clients.map(\.name) {
                let opened = connections[name].map(String.init) ?? "?"
                let target = name == "curl" && prefix == "https" ? "1" : ""
                let verdict = target.isEmpty ? "" : (connections[name] == 1 ? "met" : "MISSED")
                rows.append(("  connections opened, \(name) (all rounds)", opened, target, verdict))
            }
        }
        if failures > 0 { rows.append(("failed requests", "\(failures)", "0", "MISSED")) }
        result.table = rows.map { "| \(label) | \($0.0) | \($0.1) | \($0.2) | \($0.3) |" }.joined(separator: "\n")
        result.table +=
            "\n\n\(label) through CurlTransport: \(sequentialRounds) interleaved rounds of \(sequentialPerRound) "
            + "sequential requests and \(concurrentRounds) of \(concurrentPerRound) with \(inFlight) in flight, per client, "
            + "in rotating order; ratios round by round; "
            + "raw = URLSession.data(for:) with Courier's configuration; plain libcurl = one easy handle reused "
            + "in a C-like loop (\(inFlight) on one multi handle in flight); CPU = the process's user + system time "
            + "per request during the client's rounds."
        return result
    }

    /// Runs `total` calls of `client` with `width` in flight; returns the failures.
    static func concurrent(total: Int, width: Int, _ client: @escaping @Sendable () async -> Bool) async -> Int {
        await withTaskGroup(of: Int.self) { group in
            for worker in 0..<width {
                let share = total / width + (worker < total % width ? 1 : 0)
                group.addTask {
                    var failed = 0
                    for _ in 0..<share where await !client() { failed += 1 }
                    return failed
                }
            }
            return await group.reduce(0, +)
        }
    }
}

/// nginx's `stub_status` page, read through a session of its own whose one connection stays
/// open, so that reading it does not count.
struct NginxStatus {
    let url: URL
    let session = URLSession(configuration: .ephemeral)

    /// nginx's count of accepted connections so far.
    func accepted() async -> Int? {
        guard let (data, _) = try? await session.data(from: url) else { return nil }
        // "Active connections: 1 \n server accepts handled requests\n 10 10 20 \n…"
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard lines.count >= 3 else { return nil }
        return lines[2].split(separator: " ").first.flatMap { Int($0) }
    }
}

/// The one target of the scenario.
struct SmallJSON: TargetType {
    let baseURL: URL
    var path: String { "small.json" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { ["Accept": "application/json"] }
}

extension CurlLoopbackScenario.Result {
    /// `key` (the median), `key_min` and `key_max`.
    mutating func add(_ key: String, _ summary: Summary) {
        values.append((key, summary.median))
        values.append((key + "_min", summary.min))
        values.append((key + "_max", summary.max))
    }
}

#endif
