import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that holds every request until ``open()`` is called, so that tests can have
/// many requests in flight at once; answers 200 with the request's path as the body.
final class GatedTransport: HTTPTransport, Sendable {
    private struct State {
        var sent: [URLRequest] = []
        var cancelled = 0
        var isOpen = false
    }

    private let state = LockIsolated(State())

    /// The requests the transport was given, in order.
    var requests: [URLRequest] { state.value.sent }
    /// How many sends were cancelled while they waited.
    var cancelledCount: Int { state.value.cancelled }

    /// Lets every waiting and future request through.
    func open() { state.withValue { $0.isOpen = true } }

    func send(_ request: TransportRequest) async throws -> Response {
        state.withValue { $0.sent.append(request.urlRequest) }
        // Bounded: a test that never opens the gate fails after 10 s instead of hanging.
        for _ in 0..<1_000 where !state.value.isOpen {
            do {
                try await Task.sleep(nanoseconds: 10_000_000)
            } catch {
                state.withValue { $0.cancelled += 1 }
                throw error
            }
        }
        let body = Data((request.urlRequest.url?.path ?? "").utf8)
        return Response(statusCode: 200, data: body, request: request.urlRequest)
    }
}

/// Waits (at most `seconds`) until `condition` holds; returns whether it did.
func eventually(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 2_000_000)
    }
    return true
}
