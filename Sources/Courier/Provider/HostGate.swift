import Foundation

/// The per-host limit of a provider with ``Provider/maxRequestsPerHost``: at most `limit`
/// calls hold a slot for one host at a time, and the rest wait in arrival order.
///
/// A slot is taken *before* the plugins' `prepare` runs (so before ``AuthPlugin`` signs) and
/// given back when the call is over, which is what lets requests queued behind a refresh go
/// out with the new token. A released slot is handed straight to the longest waiter, never
/// left free while someone waits, so no request starves; a waiter whose task is cancelled
/// leaves the queue at once.
final class HostGate: Sendable {
    /// A slot held for one host; give it back with ``release(_:)`` exactly once.
    struct Slot: Sendable {
        let id: UInt64
        let host: String
    }

    /// The slots held by the current task and the tasks it started, innermost first, so
    /// that a call made from inside a call that holds a slot for the host (a plugin's own
    /// request) does not wait for a second one: with a limit of one that would wait forever.
    /// A call itself takes its slot once (``Provider/run(_:)``), around its replays and
    /// retries; this is only for calls nested in it.
    @TaskLocal static var held: Held?

    /// One entry of ``held``.
    final class Held: Sendable {
        let gate: ObjectIdentifier
        let slot: Slot
        let outer: Held?

        init(gate: HostGate, slot: Slot, outer: Held?) {
            self.gate = ObjectIdentifier(gate)
            self.slot = slot
            self.outer = outer
        }
    }

    /// One host's slots and queue.
    private struct Lane {
        var active = 0
        /// Waiter ids in arrival order from `head` on; ids no longer in `State.waiters`
        /// (cancelled) are skipped.
        var queue: [UInt64] = []
        var head = 0
        var waiting = 0
    }

    private struct Waiter {
        let host: String
        let continuation: UnsafeContinuation<Bool, Never>
    }

    private struct State {
        var lanes: [String: Lane] = [:]
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    /// The most calls in flight per host (at least 1).
    let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Whether the current task holds a slot of this gate for `host`, or was started by a
    /// call that did.
    ///
    /// An inherited slot counts even after the call that took it has ended: a shared
    /// ``Provider/trackInflights`` call outlives a caller that cancelled, and must not wait
    /// for a slot that the callers waiting for it may be holding (that would never end). At
    /// worst such a call goes out beside the limit.
    func isHeldByCurrentTask(_ host: String) -> Bool {
        var entry = Self.held
        let me = ObjectIdentifier(self)
        while let current = entry {
            if current.gate == me, current.slot.host == host { return true }
            entry = current.outer
        }
        return false
    }

    /// Takes a slot for `host`, waiting in line when all are taken; `nil` when the task is
    /// cancelled first (then nothing is held).
    func acquire(_ host: String) async -> Slot? {
        if let slot = takeFreeSlot(host) { return slot }
        let id = state.withValue { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let acquired = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
                enqueue(id, host: host, continuation)
            }
        } onCancel: {
            cancel(id)
        }
        return acquired ? Slot(id: id, host: host) : nil
    }

    /// Gives `slot` back: to the longest waiter for its host, if any.
    func release(_ slot: Slot) {
        let next = state.withValue { state -> UnsafeContinuation<Bool, Never>? in
            guard var lane = state.lanes[slot.host] else { return nil }
            defer { Self.store(lane, for: slot.host, in: &state) }
            while lane.waiting > 0, lane.head < lane.queue.count {
                let id = lane.queue[lane.head]
                lane.head += 1
                if let waiter = state.waiters.removeValue(forKey: id) {
                    lane.waiting -= 1
                    // Handed over: the lane's count of active slots stays the same.
                    return waiter.continuation
                }
            }
            lane.active -= 1
            return nil
        }
        next?.resume(returning: true)
    }

    // MARK: Private

    /// A slot at once, when one is free and nobody is waiting (no suspension at all).
    private func takeFreeSlot(_ host: String) -> Slot? {
        state.withValue { state -> Slot? in
            var lane = state.lanes[host] ?? Lane()
            guard lane.waiting == 0, lane.active < limit else { return nil }
            lane.active += 1
            state.nextID += 1
            state.lanes[host] = lane
            return Slot(id: state.nextID, host: host)
        }
    }

    private func enqueue(_ id: UInt64, host: String, _ continuation: UnsafeContinuation<Bool, Never>) {
        let answer = state.withValue { state -> Bool? in
            // Checked under the lock that `cancel` takes: a cancellation that came before
            // this found no waiter to resume, so it is answered here.
            if Task.isCancelled { return false }
            var lane = state.lanes[host] ?? Lane()
            // A slot may have come free since the first look.
            if lane.waiting == 0, lane.active < limit {
                lane.active += 1
                state.lanes[host] = lane
                return true
            }
            lane.queue.append(id)
            lane.waiting += 1
            state.waiters[id] = Waiter(host: host, continuation: continuation)
            state.lanes[host] = lane
            return nil
        }
        if let answer { continuation.resume(returning: answer) }
    }

    private func cancel(_ id: UInt64) {
        let continuation = state.withValue { state -> UnsafeContinuation<Bool, Never>? in
            guard let waiter = state.waiters.removeValue(forKey: id) else { return nil }
            if var lane = state.lanes[waiter.host] {
                lane.waiting -= 1
                Self.store(lane, for: waiter.host, in: &state)
            }
            return waiter.continuation
        }
        continuation?.resume(returning: false)
    }

    /// Stores `lane`, dropping the queue's dead prefix (or the whole lane when idle) so that
    /// memory follows the requests waiting now, not every request ever queued.
    private static func store(_ lane: Lane, for host: String, in state: inout State) {
        var lane = lane
        if lane.waiting == 0 {
            lane.queue.removeAll(keepingCapacity: false)
            lane.head = 0
        } else if lane.head > 64, lane.head * 2 > lane.queue.count {
            lane.queue.removeFirst(lane.head)
            lane.head = 0
        }
        state.lanes[host] = lane.active == 0 && lane.waiting == 0 ? nil : lane
    }
}
