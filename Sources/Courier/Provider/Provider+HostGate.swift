import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Provider {
    /// Runs `body` holding a slot of ``maxRequestsPerHost`` for `target`'s host: at once when
    /// the current task holds one already, else after waiting for it. Without a limit,
    /// `body` just runs.
    ///
    /// ``RefreshableProvider`` wraps a whole call in it (first attempt, refresh, replay), so
    /// that a call rejected with the old token keeps its slot until its replay is over and
    /// the requests queued behind it are signed after the refresh.
    func withHostSlot(
        for target: Target, _ body: () async throws(CourierError) -> Response
    ) async throws(CourierError) -> Response {
        guard let hostGate else { return try await body() }
        return try await withHostSlot(hostGate, for: target, endpoint: nil) { _ async throws(CourierError) in
            try await body()
        }
    }

    /// Runs `body` with a slot of `gate` for the endpoint's host; `body` gets the endpoint
    /// when it was made here (or passed in), so the first attempt does not make it again.
    ///
    /// A caller cancelled while waiting gets ``CourierError/cancelled``, and the plugins hear
    /// of it as of any request cancelled before it was sent.
    func withHostSlot(
        _ gate: HostGate, for target: Target, endpoint: Endpoint?,
        _ body: (Endpoint?) async throws(CourierError) -> Response
    ) async throws(CourierError) -> Response {
        let endpoint = endpoint ?? endpointClosure(target)
        let host = HostGate.host(of: endpoint)
        if gate.isHeldByCurrentTask(host) {
            return try await body(endpoint)
        }
        guard let slot = await gate.acquire(host) else {
            return try cancelledWhileQueued(target).get()
        }
        defer { gate.release(slot) }
        let held = HostGate.Held(gate: gate, slot: slot, outer: HostGate.held)
        let result = await HostGate.$held.withValue(held) { () async -> Result<Response, CourierError> in
            do throws(CourierError) {
                return .success(try await body(endpoint))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// What a caller cancelled while waiting for a slot gets: ``CourierError/cancelled``,
    /// after the plugins hear of it as of any request cancelled before it was sent.
    @inline(never)
    private func cancelledWhileQueued(_ target: Target) -> Result<Response, CourierError> {
        notifyUnsent(.failure(.cancelled), target: target)
    }
}
