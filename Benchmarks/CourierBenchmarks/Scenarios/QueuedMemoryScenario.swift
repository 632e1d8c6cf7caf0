import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Memory per request waiting behind a slow refresh: 10,000 requests queue behind one
/// refresh that takes at least a second; resident memory (VmRSS) before and while they
/// wait, divided by 10,000.
///
/// Each measurement runs in a fresh child process (this executable with `--child`), so
/// memory freed by earlier scenarios cannot hide the growth. A second child measures the
/// floor: 10,000 bare tasks suspended on a continuation.
struct QueuedMemoryScenario {
    let requests: Int
    let runs: Int

    /// Issue 14: at most 3 KB per waiting request.
    static let targetBytes = 3_072.0

    func run() async throws -> ScenarioResult {
        var perRequest: [Double] = []
        var floorPerTask: [Double] = []
        var queueSeconds: [Double] = []
        var completed: [Int] = []
        var refreshes: [Int] = []
        for _ in 0..<runs {
            let queued = try ChildProcess.run(["--child", "queue-memory", "--child-count", String(requests)])
            perRequest.append(try queued.number("bytes_per_request"))
            queueSeconds.append(try queued.number("queue_seconds"))
            completed.append(Int(try queued.number("completed")))
            refreshes.append(Int(try queued.number("refreshes")))
            let floor = try ChildProcess.run(["--child", "task-memory", "--child-count", String(requests)])
            floorPerTask.append(try floor.number("bytes_per_request"))
        }
        let memory = Summary(perRequest)
        let floor = Summary(floorPerTask)
        var result = ScenarioResult()
        result.set("queued_bytes_per_request", memory)
        result.set("queued_requests", requests)
        result.set("queued_runs", runs)
        result.set("queued_task_floor_bytes", floor)
        result.set("queued_seconds_to_queue", Summary(queueSeconds))
        result.set("queued_completed_min", completed.min() ?? 0)
        result.set("queued_refresh_calls_max", refreshes.max() ?? 0)

        let scenario = "Queued behind refresh"
        let allDone = completed.allSatisfy { $0 == requests } && refreshes.allSatisfy { $0 == 1 }
        result.rows = [
            Row(
                scenario: scenario, metric: "\(Format.integer(requests)) waiting: RSS growth per request",
                measured: memory.formatted(0, unit: "B"), target: "≤ 3 KB",
                verdict: memory.median <= Self.targetBytes ? .met : .missed),
            Row(scenario: scenario, metric: "  floor: a bare suspended Task", measured: floor.formatted(0, unit: "B")),
            Row(
                scenario: scenario, metric: "  all completed after 1 refresh",
                measured:
                    "\(completed.map(Format.integer).joined(separator: ", ")) done; \(refreshes.map(String.init).joined(separator: ", ")) refresh",
                target: "\(Format.integer(requests)); 1", verdict: allDone ? .met : .missed),
        ]
        result.notes.append(
            "Queued: VmRSS of a fresh child process before and while \(Format.integer(requests)) requests wait "
                + "for a refresh that takes ≥ 1 s (RefreshableProvider, in-memory transport); \(runs) run(s).")
        return result
    }
}

/// The child side of ``QueuedMemoryScenario``.
enum QueuedMemoryChild {
    /// A target signed with the session's token; it never reaches a network.
    struct SignedAPI: TargetType {
        static let base = URL(string: "http://127.0.0.1:8080")!
        let index: Int
        var baseURL: URL { Self.base }
        var path: String { "items/\(index)" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { ["Accept": "application/json"] }
    }

    /// A session signed in with a valid token whose refresh, once started, runs `beforeHold`
    /// and then holds until `release` opens, so requests pile up behind it.
    static func heldSession(
        release: Latch, beforeHold: @escaping @Sendable () async throws -> Void = {}
    ) async throws -> AuthSession {
        let session = AuthSession(
            refresh: { _ in
                try await beforeHold()
                await release.wait()
                return OAuthToken(
                    accessToken: "fresh", refreshToken: "r2", expiresAt: Date().addingTimeInterval(3600),
                    issuedAt: Date())
            },
            refreshWindow: nil, refreshTimeout: 600)
        try await session.signIn(
            OAuthToken(
                accessToken: "warm", refreshToken: "r1", expiresAt: Date().addingTimeInterval(3600), issuedAt: Date()))
        return session
    }

    /// Replaces the session's token with one that has just expired: the next request starts
    /// the held refresh.
    static func expireToken(of session: AuthSession) async throws {
        try await session.signIn(
            OAuthToken(
                accessToken: "old", refreshToken: "r1", expiresAt: Date().addingTimeInterval(-1),
                issuedAt: Date().addingTimeInterval(-3601)))
    }

    static func run(count: Int) async throws -> [String: Double] {
        let release = Latch()
        let refreshes = CallCounter()
        let session = try await Self.heldSession(release: release) {
            refreshes.increment()
            try await Task.sleep(nanoseconds: 1_000_000_000)
        }
        let arrivals = CallCounter()
        let provider = RefreshableProvider<SignedAPI>(
            auth: session, transport: ImmediateTransport(statusCode: 200, data: smallJSONBody))

        // Warm-up with a valid token: lazy state, caches, the allocator's first arenas.
        _ = await Self.send(count / 10, provider: provider)
        arrivals.reset()
        // The token expires now: the next request starts the slow refresh, the rest wait.
        try await Self.expireToken(of: session)
        try await Task.sleep(nanoseconds: 200_000_000)
        let before = ProcessMemory.residentBytes() ?? 0

        let started = ContinuousClock.now
        async let outcome = Self.send(count, provider: provider, arrivals: arrivals)
        // Counted when each request starts, wherever it then waits (a request that waits
        // before its URLRequest is built never reaches the request closure).
        while arrivals.value < count { try await Task.sleep(nanoseconds: 5_000_000) }
        // The last arrivals still have to reach the session and register as waiters.
        try await ProcessMemory.settle()
        let queueSeconds = started.duration(to: .now).seconds
        let during = ProcessMemory.residentBytes() ?? 0
        await release.open()
        let succeeded = await outcome
        return [
            "bytes_per_request": Double(during - before) / Double(count),
            "rss_before": Double(before),
            "rss_during": Double(during),
            "queue_seconds": queueSeconds,
            "completed": Double(succeeded),
            "refreshes": Double(refreshes.value),
        ]
    }

    /// Sends `count` requests at once; returns how many succeeded.
    static func send(_ count: Int, provider: RefreshableProvider<SignedAPI>, arrivals: CallCounter? = nil) async
        -> Int
    {
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                group.addTask {
                    arrivals?.increment()
                    return (try? await provider.request(SignedAPI(index: index)))?.statusCode == 200
                }
            }
            var succeeded = 0
            for await ok in group where ok { succeeded += 1 }
            return succeeded
        }
    }

    /// The floor: `count` bare tasks, each suspended on a continuation.
    static func runFloor(count: Int) async throws -> [String: Double] {
        let release = Latch()
        let arrivals = CallCounter()
        // Warm-up as above.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<(count / 10) { group.addTask { await Task.yield() } }
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        let before = ProcessMemory.residentBytes() ?? 0
        async let done: Void = withTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    arrivals.increment()
                    await release.wait()
                }
            }
        }
        while arrivals.value < count { try await Task.sleep(nanoseconds: 5_000_000) }
        try await ProcessMemory.settle()
        let during = ProcessMemory.residentBytes() ?? 0
        await release.open()
        await done
        return ["bytes_per_request": Double(during - before) / Double(count)]
    }
}

/// Waiters suspend until it is opened; afterwards nobody waits.
actor Latch {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        let all = waiting
        waiting.removeAll()
        for waiter in all { waiter.resume() }
    }
}
