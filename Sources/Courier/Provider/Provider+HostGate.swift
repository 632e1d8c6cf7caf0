import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Provider {
    /// Runs `body` holding a slot of `gate` for the call's host, after waiting for it.
    ///
    /// It wraps a whole call (every stage around the send: the first attempt, a refresh and
    /// its replay, the retries), so that a call rejected with the old token keeps its slot
    /// until its replay is over and the requests queued behind it are signed after the
    /// refresh. The task-local it sets serves only calls made from inside this one (a
    /// plugin's own request to the same host), which must not wait for the slot this call
    /// holds. A caller cancelled while
    /// waiting gets ``CourierError/cancelled``, and the plugins hear of it as of any request
    /// cancelled before it was sent.
    nonisolated(nonsending) func withHostSlot(
        _ gate: HostGate, for call: RequestCall,
        _ body: () async throws(CourierError) -> Response
    ) async throws(CourierError) -> Response {
        guard let slot = await gate.acquire(call.host) else {
            return try notifyUnsent(.failure(.cancelled), target: call.context.target).get()
        }
        defer { gate.release(slot) }
        let held = HostGate.Held(gate: gate, slot: slot, outer: HostGate.held)
        let result = await HostGate.$held.withValue(held) { () async -> Result<Response, CourierError> in
            do throws(CourierError) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
