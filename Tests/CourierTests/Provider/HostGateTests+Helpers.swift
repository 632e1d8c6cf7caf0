import CourierTesting
import Foundation

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two hosts: items on a.example.com, one path on b.example.com.
enum HostAPI: TargetType {
    case item(Int)
    case elsewhere

    var baseURL: URL {
        switch self {
        case .item: URL(string: "https://a.example.com")!
        case .elsewhere: URL(string: "https://B.example.com")!
        }
    }
    var path: String {
        switch self {
        case .item(let index): "items/\(index)"
        case .elsewhere: "other"
        }
    }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

/// A transport that counts the requests inside it at once, and says when a number of them
/// are. How it answers is its `Release`; with `failFirstAttempts`, the first attempt of each
/// path is answered 503.
final class SlotCountingTransport: HTTPTransport, Sendable {
    /// When a request inside the transport is answered.
    enum Release: Sendable {
        /// When the test calls ``open()`` (and at once after that).
        case whenOpened
        /// At once, after letting other tasks run.
        case immediately
        /// Once `batch` requests are inside at once — or all of the `total` not answered yet,
        /// when fewer are left: a limit of `batch` is then filled every time, which a pause
        /// could only make likely. A limit below `batch` never lets them through (the suite's
        /// time limit ends the test); one above lets more in than `batch`.
        case inBatches(of: Int, total: Int)
    }

    private struct State {
        var inFlight = 0
        var maxInFlight = 0
        var answered = 0
        var isOpen = false
        var requests: [URLRequest] = []
        var failed: Set<String> = []
    }

    private let state = LockIsolated(State())
    private let release: Release
    private let failFirstAttempts: Bool

    init(_ release: Release = .whenOpened, failFirstAttempts: Bool = false) {
        self.release = release
        self.failFirstAttempts = failFirstAttempts
    }

    var inFlight: Int { state.value.inFlight }
    var maxInFlight: Int { state.value.maxInFlight }
    var paths: [String] { state.value.requests.map { $0.url?.path ?? "" } }
    var hosts: [String] { state.value.requests.map { $0.url?.host ?? "" } }

    func open() { state.withValue { $0.isOpen = true } }

    /// Waits until at least `count` requests are inside the transport at once.
    func waitForInFlight(_ count: Int) async throws {
        try await state.wait { $0.inFlight >= count }
    }

    func send(_ request: TransportRequest) async throws -> Response {
        let path = request.urlRequest.url?.path ?? ""
        let fail = state.withValue { state -> Bool in
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            state.requests.append(request.urlRequest)
            return failFirstAttempts && state.failed.insert(path).inserted
        }
        defer {
            state.withValue {
                $0.inFlight -= 1
                $0.answered += 1
            }
        }
        switch release {
        case .whenOpened:
            try await state.wait { $0.isOpen }
        case .immediately:
            await Task.yield()
        case .inBatches(let batch, let total):
            try await state.wait { $0.inFlight >= min(batch, total - $0.answered) }
        }
        return Response(statusCode: fail ? 503 : 200, data: Data(), request: request.urlRequest)
    }
}

/// Counts the plugins' `prepare` calls under way at once, and in all.
final class ConcurrentPrepares: PluginType, Sendable {
    private struct Counts {
        var current = 0
        var peak = 0
        var total = 0
    }

    private let counts = LockIsolated(Counts())

    var max: Int { counts.value.peak }
    var total: Int { counts.value.total }

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        counts.withValue {
            $0.current += 1
            $0.total += 1
            $0.peak = Swift.max($0.peak, $0.current)
        }
        // Lets other tasks run, so that prepares the limit failed to hold back would overlap.
        await Task.yield()
        counts.withValue { $0.current -= 1 }
        return request
    }
}

/// Counts the cancellations the plugins hear of for requests that were never sent.
final class UnsentLog: PluginType, Sendable {
    private let count = LockIsolated(0)

    var unsentCancellations: Int { count.value }

    func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
        guard case .failure(.cancelled) = result, !PluginNotification.requestWasSent else { return }
        count.withValue { $0 += 1 }
    }
}

/// Makes a request to the same host from inside `prepare` of `.item(n)` for n > 0, through
/// the provider it is installed in.
final class NestedRequestPlugin: PluginType, Sendable {
    private let stored = LockIsolated<Provider<HostAPI>?>(nil)

    var provider: Provider<HostAPI>? {
        get { stored.value }
        set { stored.setValue(newValue) }
    }

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        if case .item(let index) = target as? HostAPI, index > 0, let provider {
            _ = try await provider.request(.item(0))
        }
        return request
    }
}

/// Shows, through the pipeline alone, that every slot of a provider's `maxRequestsPerHost`
/// is free (no production counter): once armed by ``expectFreeSlots(_:send:)``, it holds each
/// request in `prepare` — where the request already holds its slot — until `count` requests
/// are there at once. A leaked slot keeps one of them out, and the suite's time limit ends the
/// test.
final class SlotProbe: PluginType, Sendable {
    private struct State {
        var armedFor = 0
        var inside = 0
    }

    private let state = LockIsolated(State())

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        let count = state.withValue { state -> Int in
            guard state.armedFor > 0 else { return 0 }
            state.inside += 1
            return state.armedFor
        }
        guard count > 0 else { return request }
        _ = try await state.wait { $0.inside >= count }
        return request
    }

    /// Runs `send` `count` times at once (with 0..<count); they all get past `prepare` only
    /// when `count` of them hold a slot together.
    func expectFreeSlots(_ count: Int, send: @escaping @Sendable (Int) async throws -> Void) async throws {
        state.withValue { $0 = State(armedFor: count, inside: 0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask { try await send(index) }
            }
            try await group.waitForAll()
        }
        state.withValue { $0 = State() }
    }
}
