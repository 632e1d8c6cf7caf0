import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Loopback throughput: `Provider` against raw `URLSession.data(for:)`, both fetching a small
/// JSON document from a local nginx, sequentially and with 32 requests in flight.
///
/// The raw client gets Courier's session configuration (no `URLCache`), so the ratio is the
/// cost of Courier itself; a second raw client with `URLSessionConfiguration.default` shows
/// what that default is worth, and a third drives delegate-based tasks the way Courier's
/// transport must (for its redirect, challenge and cancellation guarantees), to show what
/// that design costs by itself.
struct LoopbackScenario {
    let port: Int
    /// Requests per client in all, sequentially.
    let sequentialRequests: Int
    /// Requests per client in all, 32 in flight.
    let concurrentRequests: Int
    /// Interleaved rounds of sequential requests (short rounds, many of them: a busy spell
    /// of the machine then spoils few rounds, and all clients alike).
    let sequentialRounds: Int
    /// Interleaved rounds with 32 in flight (longer rounds: each starts 32 workers).
    let concurrentRounds: Int
    let inFlight = 32

    static let target = 0.97

    func run() async throws -> ScenarioResult {
        let base = URL(string: "http://127.0.0.1:\(port)")!
        let provider = Provider<LoopbackAPI>()
        let target = LoopbackAPI(baseURL: base)
        let raw = RawClient(
            configuration: URLSessionTransport.defaultConfiguration(), url: base.appendingPathComponent("small.json"))
        let rawDefault = RawClient(configuration: .default, url: base.appendingPathComponent("small.json"))
        let rawDelegate = RawDelegateClient(url: base.appendingPathComponent("small.json"))
        let failures = FailureCount()
        let expectedLength = smallJSONBody.count

        let courierOnce: @Sendable () async -> Void = {
            do {
                let response = try await provider.request(target)
                if response.statusCode != 200 || response.data.count != expectedLength { failures.add() }
            } catch {
                failures.add()
            }
        }
        let rawOnce: @Sendable () async -> Void = { await raw.fetch(expecting: expectedLength, failures: failures) }
        let rawDefaultOnce: @Sendable () async -> Void = {
            await rawDefault.fetch(expecting: expectedLength, failures: failures)
        }
        let rawDelegateOnce: @Sendable () async -> Void = {
            await rawDelegate.fetch(expecting: expectedLength, failures: failures)
        }

        // Warm-up: connections, lazy state of both stacks.
        for client in [courierOnce, rawOnce, rawDefaultOnce, rawDelegateOnce] {
            try await Self.runConcurrent(total: 500, width: inFlight, client)
            for _ in 0..<200 { await client() }
        }

        let sequentialPerRound = max(1, sequentialRequests / sequentialRounds)
        let concurrentPerRound = max(1, concurrentRequests / concurrentRounds)
        let width = inFlight
        func sequential(_ client: @escaping @Sendable () async -> Void) -> Interleaved.Variant<Double> {
            .init(name: "") { await Timing.seconds { for _ in 0..<sequentialPerRound { await client() } } }
        }
        func concurrent(_ client: @escaping @Sendable () async -> Void) -> Interleaved.Variant<Double> {
            .init(name: "") {
                try await Timing.seconds {
                    try await Self.runConcurrent(total: concurrentPerRound, width: width, client)
                }
            }
        }
        func named(_ name: String, _ variant: Interleaved.Variant<Double>) -> Interleaved.Variant<Double> {
            .init(name: name, round: variant.round)
        }
        var samples = try await Interleaved.run(
            rounds: sequentialRounds,
            [
                named("courier-seq", sequential(courierOnce)), named("raw-seq", sequential(rawOnce)),
                named("default-seq", sequential(rawDefaultOnce)), named("delegate-seq", sequential(rawDelegateOnce)),
            ])
        samples.merge(
            try await Interleaved.run(
                rounds: concurrentRounds,
                [
                    named("courier-conc", concurrent(courierOnce)), named("raw-conc", concurrent(rawOnce)),
                    named("default-conc", concurrent(rawDefaultOnce)),
                    named("delegate-conc", concurrent(rawDelegateOnce)),
                ])
        ) { first, _ in first }

        func throughput(_ name: String, _ perRound: Int) -> Summary {
            Summary(samples[name]!.map { Double(perRound) / $0 })
        }
        // Courier / raw throughput, round by round = raw time / Courier time.
        let sequentialRatio = Summary.ratios(samples["raw-seq"]!, samples["courier-seq"]!)
        let concurrentRatio = Summary.ratios(samples["raw-conc"]!, samples["courier-conc"]!)
        let sequentialDelegateRatio = Summary.ratios(samples["raw-seq"]!, samples["delegate-seq"]!)
        let concurrentDelegateRatio = Summary.ratios(samples["raw-conc"]!, samples["delegate-conc"]!)
        let sequentialCourierVsDelegate = Summary.ratios(samples["delegate-seq"]!, samples["courier-seq"]!)
        let concurrentCourierVsDelegate = Summary.ratios(samples["delegate-conc"]!, samples["courier-conc"]!)
        let sequentialCacheGain = Summary.ratios(samples["default-seq"]!, samples["raw-seq"]!)
        let concurrentCacheGain = Summary.ratios(samples["default-conc"]!, samples["raw-conc"]!)
        let courierSeq = throughput("courier-seq", sequentialPerRound)
        let rawSeq = throughput("raw-seq", sequentialPerRound)
        let defaultSeq = throughput("default-seq", sequentialPerRound)
        let courierConc = throughput("courier-conc", concurrentPerRound)
        let rawConc = throughput("raw-conc", concurrentPerRound)
        let defaultConc = throughput("default-conc", concurrentPerRound)
        let rawSeqLatency = Summary(samples["raw-seq"]!.map { $0 / Double(sequentialPerRound) * 1e6 })
        let courierSeqLatency = Summary(samples["courier-seq"]!.map { $0 / Double(sequentialPerRound) * 1e6 })
        let overheadPerRequest = Summary(
            zip(samples["courier-seq"]!, samples["raw-seq"]!).map { ($0 - $1) / Double(sequentialPerRound) * 1e6 })

        var result = ScenarioResult()
        result.set("loopback_sequential_ratio", sequentialRatio)
        result.set("loopback_concurrent_ratio", concurrentRatio)
        result.set("loopback_sequential_courier_rps", courierSeq)
        result.set("loopback_sequential_raw_rps", rawSeq)
        result.set("loopback_sequential_raw_default_config_rps", defaultSeq)
        result.set("loopback_concurrent_courier_rps", courierConc)
        result.set("loopback_concurrent_raw_rps", rawConc)
        result.set("loopback_concurrent_raw_default_config_rps", defaultConc)
        result.set("loopback_sequential_raw_us_per_request", rawSeqLatency)
        result.set("loopback_sequential_courier_us_per_request", courierSeqLatency)
        result.set("loopback_sequential_overhead_us_per_request", overheadPerRequest)
        result.set("loopback_sequential_raw_delegate_ratio", sequentialDelegateRatio)
        result.set("loopback_concurrent_raw_delegate_ratio", concurrentDelegateRatio)
        result.set("loopback_sequential_courier_vs_raw_delegate", sequentialCourierVsDelegate)
        result.set("loopback_concurrent_courier_vs_raw_delegate", concurrentCourierVsDelegate)
        result.set("loopback_no_cache_gain_sequential", sequentialCacheGain)
        result.set("loopback_no_cache_gain_concurrent", concurrentCacheGain)
        result.set("loopback_requests_sequential", sequentialPerRound * sequentialRounds)
        result.set("loopback_requests_concurrent", concurrentPerRound * concurrentRounds)
        result.set("loopback_in_flight", inFlight)
        result.set("loopback_rounds_sequential", sequentialRounds)
        result.set("loopback_rounds_concurrent", concurrentRounds)
        result.set("loopback_failures", failures.value)

        let scenario = "Loopback (nginx)"
        let seqCount = Format.integer(sequentialPerRound * sequentialRounds)
        let concCount = Format.integer(concurrentPerRound * concurrentRounds)
        result.rows = [
            Row(
                scenario: scenario, metric: "raw URLSession, sequential (\(seqCount))",
                measured: rawSeq.formatted(0, unit: "req/s")),
            Row(
                scenario: scenario, metric: "Courier Provider, sequential",
                measured: courierSeq.formatted(0, unit: "req/s")),
            Row(
                scenario: scenario, metric: "  Courier / raw", measured: sequentialRatio.formatted(3),
                target: "≥ \(Self.target)", verdict: sequentialRatio.median >= Self.target ? .met : .missed),
            Row(
                scenario: scenario, metric: "  Courier − raw per request",
                measured: overheadPerRequest.formatted(1, unit: "µs")),
            Row(
                scenario: scenario, metric: "raw URLSession, \(inFlight) in flight (\(concCount))",
                measured: rawConc.formatted(0, unit: "req/s")),
            Row(
                scenario: scenario, metric: "Courier Provider, \(inFlight) in flight",
                measured: courierConc.formatted(0, unit: "req/s")),
            Row(
                scenario: scenario, metric: "  Courier / raw", measured: concurrentRatio.formatted(3),
                target: "≥ \(Self.target)", verdict: concurrentRatio.median >= Self.target ? .met : .missed),
            Row(
                scenario: scenario, metric: "raw delegate-based URLSession / raw data(for:), sequential",
                measured: sequentialDelegateRatio.formatted(3)),
            Row(
                scenario: scenario, metric: "raw delegate-based URLSession / raw data(for:), \(inFlight) in flight",
                measured: concurrentDelegateRatio.formatted(3)),
            Row(
                scenario: scenario, metric: "Courier / raw delegate-based URLSession, sequential",
                measured: sequentialCourierVsDelegate.formatted(3)),
            Row(
                scenario: scenario, metric: "Courier / raw delegate-based URLSession, \(inFlight) in flight",
                measured: concurrentCourierVsDelegate.formatted(3)),
            Row(
                scenario: scenario, metric: "no URLCache vs .default config, sequential",
                measured: sequentialCacheGain.formatted(2, unit: "×")),
            Row(
                scenario: scenario, metric: "no URLCache vs .default config, \(inFlight) in flight",
                measured: concurrentCacheGain.formatted(2, unit: "×")),
        ]
        if failures.value > 0 {
            result.rows.append(
                Row(
                    scenario: scenario, metric: "failed requests", measured: Format.integer(failures.value),
                    target: "0", verdict: .missed))
        }
        result.notes.append(
            "Loopback: \(sequentialRounds) interleaved rounds of \(Format.integer(sequentialPerRound)) sequential "
                + "requests and \(concurrentRounds) of \(Format.integer(concurrentPerRound)) with \(inFlight) in flight, "
                + "per client; raw = URLSession.data(for:) "
                + "with Courier's configuration (no URLCache); the .default rows use URLSessionConfiguration.default; "
                + "\"delegate-based\" = dataTask(with:) + a minimal session delegate on a serial dispatch queue, "
                + "as Courier's transport.")
        return result
    }

    /// Runs `total` calls of `body` with `width` of them in flight (`width` tasks, each
    /// calling it one after the other).
    static func runConcurrent(total: Int, width: Int, _ body: @escaping @Sendable () async -> Void) async throws {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<width {
                let share = total / width + (worker < total % width ? 1 : 0)
                group.addTask {
                    for _ in 0..<share { await body() }
                }
            }
        }
    }
}

/// A client written directly against `URLSession`: what Courier is compared with.
struct RawClient: Sendable {
    let session: URLSession
    let url: URL

    init(configuration: URLSessionConfiguration, url: URL) {
        self.session = URLSession(configuration: configuration)
        self.url = url
    }

    /// The request any client builds (URL, method, one header), sent with `data(for:)`;
    /// checks the status and length as Courier's caller would.
    func fetch(expecting length: Int, failures: FailureCount) async {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        do {
            let (data, response) = try await session.data(for: request)
            if (response as? HTTPURLResponse)?.statusCode != 200 || data.count != length { failures.add() }
        } catch {
            failures.add()
        }
    }
}

/// A client written directly against `URLSession` with delegate-based tasks, as Courier's
/// transport drives them: a minimal delegate that collects the response and body and resumes
/// a continuation, its callbacks on a serial dispatch queue. The difference to ``RawClient``
/// is the price of that design on swift-corelibs-foundation, whoever pays it.
final class RawDelegateClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked, with its own lock: the raw URLSession baseline this benchmark compares
    // Courier with, written as an app without Courier would write it. `lock` guards
    // `pending`; `session` is set once in `init`, before any other thread sees the client.
    private let lock = NSLock()
    private var pending:
        [Int: (continuation: CheckedContinuation<(Data, URLResponse?), any Error>, data: Data, response: URLResponse?)] =
            [:]
    private let url: URL
    private var session: URLSession!

    init(url: URL) {
        self.url = url
        super.init()
        let queue = DispatchBackedOperationQueue(label: "CourierBenchmarks.RawDelegateClient")
        session = URLSession(
            configuration: URLSessionTransport.defaultConfiguration(), delegate: self, delegateQueue: queue)
    }

    func fetch(expecting length: Int, failures: FailureCount) async {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        do {
            let (data, response) = try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request)
                lock.withLock { pending[task.taskIdentifier] = (continuation, Data(), nil) }
                task.resume()
            }
            if (response as? HTTPURLResponse)?.statusCode != 200 || data.count != length { failures.add() }
        } catch {
            failures.add()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        lock.withLock { pending[dataTask.taskIdentifier]?.response = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { pending[dataTask.taskIdentifier]?.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            entry.continuation.resume(throwing: error)
        } else {
            entry.continuation.resume(returning: (entry.data, entry.response ?? task.response))
        }
    }
}

/// A serial delegate queue whose blocks run on a dispatch queue (what Courier's transport used
/// on Linux before it ran them in place; see `InlineDelegateQueue`).
final class DispatchBackedOperationQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: the only stored property is an immutable DispatchQueue.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
        super.init()
        maxConcurrentOperationCount = 1
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        queue.async(execute: block)
    }
}

/// A thread-safe counter of failed requests.
final class FailureCount: Sendable {
    private let count = CallCounter()

    func add() { count.increment() }
    var value: Int { count.value }
}
