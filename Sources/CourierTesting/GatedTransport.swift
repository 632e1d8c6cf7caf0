import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that holds every request at a gate until the test calls ``open()``, then
/// hands it to the transport it wraps: the way to have many requests in flight at once
/// (a burst behind one refresh, identical requests sharing one call) and to cancel one while
/// it waits.
///
/// ```swift
/// let transport = GatedTransport(answering: ClosureTransport.successful())
/// let provider = Provider<MyAPI>(transport: transport)
/// let tasks = (0..<3).map { _ in Task { try await provider.request(.profile) } }
/// try await transport.waitForWaitingRequests(3)  // all three are held at the gate now
/// transport.open()
/// ```
///
/// A request whose task is cancelled while it waits fails with `CancellationError` at once
/// and is counted in ``cancelledCount``. The `wait…` methods tell the test when requests have
/// arrived, wait or were cancelled, so it never sleeps or polls. The gate has no time-out of
/// its own: give a suite that uses it a `.timeLimit`, so a test that never opens the gate (or
/// waits for requests that never come) fails instead of hanging.
public final class GatedTransport: HTTPTransport, Sendable {
    private struct State: Sendable {
        var isOpen = false
        var requests: [URLRequest] = []
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        /// Requests cancelled before they started waiting, so they never wait.
        var cancelledEarly: Set<Int> = []
        var cancelled = 0
    }

    private let state = LockIsolated(State())
    private let transport: any HTTPTransport

    /// Creates a closed gate in front of `transport`, which answers the requests once they
    /// pass.
    public init(answering transport: any HTTPTransport) {
        self.transport = transport
    }

    /// The requests that reached the gate so far, in order, whether they passed or not.
    public var requests: [URLRequest] { state.value.requests }

    /// How many requests wait at the gate now.
    public var waitingCount: Int { state.value.waiters.count }

    /// How many requests were cancelled while they waited at the gate.
    public var cancelledCount: Int { state.value.cancelled }

    /// Waits until at least `count` requests have reached the gate since it was created,
    /// whether they wait, passed or were cancelled.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func waitForRequests(_ count: Int) async throws {
        try await state.wait { $0.requests.count >= count }
    }

    /// Waits until at least `count` requests wait at the (closed) gate at once.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func waitForWaitingRequests(_ count: Int) async throws {
        try await state.wait { $0.waiters.count >= count }
    }

    /// Waits until at least `count` requests have been cancelled at the gate (see
    /// ``cancelledCount``).
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func waitForCancellations(_ count: Int) async throws {
        try await state.wait { $0.cancelled >= count }
    }

    /// Lets every waiting request through, and every later one straight through.
    public func open() {
        let waiters = state.withValue { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// Waits at the gate until it opens, then sends `request` with the wrapped transport.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits, or what the
    ///   wrapped transport throws.
    public func send(_ request: TransportRequest) async throws -> Response {
        let id = state.withValue { state in
            state.requests.append(request.urlRequest)
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let passNow: Result<Void, any Error>? = state.withValue { state in
                    if state.cancelledEarly.remove(id) != nil {
                        state.cancelled += 1
                        return .failure(CancellationError())
                    }
                    if state.isOpen { return .success(()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let passNow { continuation.resume(with: passNow) }
            }
        } onCancel: {
            let waiter = state.withValue { state -> CheckedContinuation<Void, any Error>? in
                if let waiter = state.waiters.removeValue(forKey: id) {
                    state.cancelled += 1
                    return waiter
                }
                // Not waiting yet (or already through): a request that has not started waiting
                // must not start.
                if !state.isOpen { state.cancelledEarly.insert(id) }
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
        return try await transport.send(request)
    }
}
