import Courier
import CourierTestServer
import Foundation

/// One run of several `CourierCrossProcessChild` processes sharing one token file against a
/// test server that rotates refresh tokens and revokes the whole family when one is used
/// twice — the setting in which uncoordinated processes log the user out.
///
/// The children start together (each says `READY`, then all get `GO`), send signed requests
/// for `duration` seconds while tokens expire every `lifetime` seconds, and report. With
/// `kills`, the next refresh claims a stall file and hangs holding the lease; the run kills
/// that process (`kill -9`) as soon as it says so, starts a replacement, and does it again
/// until it has killed `kills` of them. Meanwhile the token file is read over and over, to
/// prove it is never missing or half-written. At the end a fresh process must use the file
/// without signing in.
struct CrossProcessRun {
    var processes: Int
    var sessionsPerProcess = 1
    var duration: TimeInterval = 3
    var kills = 0
    var lifetime: TimeInterval = 1.5
    var leeway: TimeInterval = 0.4
    var workers = 2

    struct Outcome {
        var reports: [ChildReport] = []
        var check: ChildReport?
        var exitedWithoutReport = 0
        var stalls = 0
        var clientRefreshes = 0
        var counters: TestServerCounters?
        var fileReads = 0
        var fileMissing = 0
        var fileCorrupt = 0
        /// From the sign-in to the last report, in seconds.
        var elapsed: TimeInterval = 0

        func total(_ key: String) -> Int { reports.reduce(0) { $0 + max(0, $1[key]) } }

        /// At most one refresh per half token lifetime (the proactive refresh comes
        /// `leeway` before expiry; a request held up longer than that on a busy machine is
        /// rejected and refreshes a little early), plus one: uncoordinated processes would
        /// refresh once each per expiry.
        func refreshBound(lifetime: TimeInterval) -> Int {
            Int((elapsed / (lifetime / 2)).rounded(.up)) + 1
        }
    }

    func run() async throws -> Outcome {
        let server = try await TestServer.start(tokenLifetime: lifetime)
        defer { server.stop() }
        try await server.configure(.init(reuseDetection: true))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-xproc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokenFile = folder.appendingPathComponent("token.json")
        let stallFile = folder.appendingPathComponent("stall")
        let issued = try await server.issueToken(lifetime: lifetime)
        try FileTokenStore(url: tokenFile).save(OAuthToken(tokenResponse: issued, receivedAt: Date()))
        try await server.resetCounters()
        let signedIn = ContinuousClock.now

        let load = Double(processes * sessionsPerProcess * workers)
        var arguments = [
            "--server", server.baseURL.absoluteString, "--token-file", tokenFile.path,
            "--workers", "\(workers)", "--sessions", "\(sessionsPerProcess)", "--leeway", "\(leeway)",
            // About 150 requests a second in all, whatever the number of processes.
            "--interval", "\(max(0.01, load / 150))",
        ]
        if kills > 0 { arguments += ["--stall-file", stallFile.path] }

        let (events, sink) = AsyncStream.makeStream(of: (Int, String).self)
        var children: [Int: ChildProcess] = [:]
        defer { for child in children.values { child.stop() } }
        func launch(_ extra: [String]) throws {
            let id = children.count
            let child = try ChildProcess(arguments + extra)
            children[id] = child
            Task {
                for await line in child.lines { sink.yield((id, line)) }
                sink.yield((id, "EXIT"))
            }
        }
        for _ in 0..<processes { try launch(["--duration", "\(duration)"]) }

        let watching = FileWatch(tokenFile)
        let watcher = Task { await watching.watch() }

        var outcome = Outcome()
        var ready = 0
        var running = Set(children.keys)
        var started: ContinuousClock.Instant?
        for await (id, line) in events {
            switch line {
            case "READY" where started == nil:
                ready += 1
                if ready == processes {
                    started = .now
                    for child in children.values { child.send("GO") }
                    if kills > 0 { _ = FileManager.default.createFile(atPath: stallFile.path, contents: nil) }
                }
            case "STALLED":
                // The lease holder, during its refresh, before the request reached the server.
                outcome.stalls += 1
                children[id]?.kill()
                running.remove(id)
                let elapsed = started.map { $0.duration(to: .now) } ?? .zero
                let remaining = max(0.5, duration - Double(elapsed.components.seconds))
                try launch(["--duration", "\(remaining)", "--go"])
                running.insert(children.count - 1)
                if outcome.stalls < kills { _ = FileManager.default.createFile(atPath: stallFile.path, contents: nil) }
            case "REFRESH":
                outcome.clientRefreshes += 1
            case "EXIT":
                if running.remove(id) != nil { outcome.exitedWithoutReport += 1 }
            default:
                if let report = ChildReport(line, prefix: "DONE") {
                    outcome.reports.append(report)
                    running.remove(id)
                }
            }
            if started != nil, running.isEmpty { break }
        }
        outcome.elapsed = signedIn.duration(to: .now).inSeconds
        let file = await watching.stop(watcher)
        outcome.fileReads = file.reads
        outcome.fileMissing = file.missing
        outcome.fileCorrupt = file.corrupt
        outcome.counters = try await server.counters()

        // A fresh process: it uses the file as it is, without signing in.
        let check = try ChildProcess(arguments + ["--mode", "check"])
        children[children.count] = check
        for await line in check.lines {
            if let report = ChildReport(line, prefix: "CHECK") { outcome.check = report }
        }
        return outcome
    }
}

/// Reads the token file every 2 ms until stopped, counting the reads that found no
/// file or something that is not a token.
final class FileWatch: Sendable {
    struct Counts: Sendable {
        var reads = 0
        var missing = 0
        var corrupt = 0
    }

    private let url: URL
    private let counts = Locked(Counts())
    private let stopped = Locked(false)

    init(_ url: URL) {
        self.url = url
    }

    func watch() async {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        while !stopped.withValue({ $0 }) {
            let result: (missing: Bool, corrupt: Bool)
            if let data = FileManager.default.contents(atPath: url.path) {
                result = (false, (try? decoder.decode(OAuthToken.self, from: data)) == nil)
            } else {
                result = (true, false)
            }
            counts.withValue { counts in
                counts.reads += 1
                if result.missing { counts.missing += 1 }
                if result.corrupt { counts.corrupt += 1 }
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    func stop(_ task: Task<Void, Never>) async -> Counts {
        stopped.withValue { $0 = true }
        await task.value
        return counts.withValue { $0 }
    }
}

extension Duration {
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
