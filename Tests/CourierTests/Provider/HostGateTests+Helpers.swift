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

/// A transport that counts the requests inside it at once. It holds each request until
/// ``open()``, or answers it after a short pause when made with `autoAnswerAfterMicroseconds`;
/// with `failFirstAttempts`, the first attempt of each path is answered 503.
final class SlotCountingTransport: HTTPTransport, Sendable {
    private struct State {
        var inFlight = 0
        var maxInFlight = 0
        var isOpen = false
        var requests: [URLRequest] = []
        var failed: Set<String> = []
    }

    private let state = LockIsolated(State())
    private let pause: UInt64?
    private let failFirstAttempts: Bool

    init(autoAnswerAfterMicroseconds: UInt64? = nil, failFirstAttempts: Bool = false) {
        self.pause = autoAnswerAfterMicroseconds.map { $0 * 1_000 }
        self.failFirstAttempts = failFirstAttempts
    }

    var inFlight: Int { state.value.inFlight }
    var maxInFlight: Int { state.value.maxInFlight }
    var paths: [String] { state.value.requests.map { $0.url?.path ?? "" } }
    var hosts: [String] { state.value.requests.map { $0.url?.host ?? "" } }

    func open() { state.withValue { $0.isOpen = true } }

    func send(_ request: TransportRequest) async throws -> Response {
        let path = request.urlRequest.url?.path ?? ""
        let fail = state.withValue { state -> Bool in
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            state.requests.append(request.urlRequest)
            return failFirstAttempts && state.failed.insert(path).inserted
        }
        defer { state.withValue { $0.inFlight -= 1 } }
        if let pause {
            try await Task.sleep(nanoseconds: pause)
        } else {
            // Bounded: a test that never opens fails after 10 s instead of hanging.
            for _ in 0..<1_000 where !state.value.isOpen {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
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
        // A pause, so that overlapping prepares would be seen.
        try? await Task.sleep(nanoseconds: 50_000)
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
