import Foundation

/// The calls in flight of a provider with `trackInflights`: identical requests share one
/// call, and each caller waits for its result on its own, so that one caller's cancellation
/// does not cancel the call for the others.
final class InflightRequests: Sendable {
    /// What a shared call gives each caller: its result (after its refresh and replay, if it
    /// had one).
    typealias Outcome = Result<Response, CourierError>

    /// One shared call: the task that runs it and the callers waiting for it.
    private struct Call {
        let id: UInt64
        let task: Task<Void, Never>
        var waiters: [UInt64: CheckedContinuation<Outcome, Never>]
    }

    private struct State {
        var calls: [EndpointIdentity: Call] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// The result of the call for `identity`: the one in flight, or a new one, the task that
    /// `start` returns (the caller makes it, so that it runs on the caller's actor). A
    /// cancelled caller gets ``CourierError/cancelled`` at once; the call itself is cancelled
    /// when its last caller is.
    nonisolated(nonsending) func result(
        for identity: EndpointIdentity, start: () -> Task<Outcome, Never>
    ) async -> Outcome {
        let waiter = state.withValue { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                join(identity, waiter: waiter, continuation: continuation, start: start)
            }
        } onCancel: {
            leave(identity, waiter: waiter)
        }
    }

    private func join(
        _ identity: EndpointIdentity, waiter: UInt64,
        continuation: CheckedContinuation<Outcome, Never>, start: () -> Task<Outcome, Never>
    ) {
        let joined = state.withValue { state -> Bool in
            // Checked under the lock that `leave` takes: a cancellation that came before this
            // found no waiter to resume, so it is handled here.
            if Task.isCancelled { return false }
            if state.calls[identity] != nil {
                state.calls[identity]?.waiters[waiter] = continuation
                return true
            }
            state.nextID += 1
            let id = state.nextID
            // Started under the lock, so it cannot finish before it is recorded.
            let call = start()
            let task = Task {
                let outcome = await withTaskCancellationHandler {
                    await call.value
                } onCancel: {
                    call.cancel()
                }
                self.finish(identity, call: id, with: outcome)
            }
            state.calls[identity] = Call(id: id, task: task, waiters: [waiter: continuation])
            return true
        }
        if !joined {
            continuation.resume(returning: .failure(.cancelled))
        }
    }

    /// Resumes every caller still waiting for call `id`.
    private func finish(_ identity: EndpointIdentity, call id: UInt64, with outcome: Outcome) {
        let waiters = state.withValue { state -> [CheckedContinuation<Outcome, Never>] in
            guard let call = state.calls[identity], call.id == id else { return [] }
            state.calls[identity] = nil
            return Array(call.waiters.values)
        }
        for waiter in waiters {
            waiter.resume(returning: outcome)
        }
    }

    /// A cancelled caller stops waiting; the last one to go cancels the call.
    private func leave(_ identity: EndpointIdentity, waiter: UInt64) {
        let (continuation, abandoned) = state.withValue {
            state -> (CheckedContinuation<Outcome, Never>?, Task<Void, Never>?) in
            guard var call = state.calls[identity], let continuation = call.waiters.removeValue(forKey: waiter)
            else {
                return (nil, nil)
            }
            if call.waiters.isEmpty {
                state.calls[identity] = nil
                return (continuation, call.task)
            }
            state.calls[identity] = call
            return (continuation, nil)
        }
        abandoned?.cancel()
        continuation?.resume(returning: .failure(.cancelled))
    }
}
