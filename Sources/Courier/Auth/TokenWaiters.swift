import Foundation

/// The continuations of requests waiting for a token, behind a lock so that a cancelled
/// request is resumed at once from its cancellation handler, without waiting for the
/// session's actor.
final class TokenWaiters: Sendable {
    typealias Continuation = CheckedContinuation<OAuthToken, any Error>

    private struct State {
        var waiting: [UInt64: Continuation] = [:]
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    func makeID() -> UInt64 {
        state.withLock {
            $0.nextID += 1
            return $0.nextID
        }
    }

    /// Registers `continuation` for `id`; if `id` was cancelled already, resumes it with
    /// ``AuthenticationError/cancelled`` at once.
    func register(_ id: UInt64, _ continuation: Continuation) {
        let cancelled = state.withLock {
            if $0.cancelledEarly.remove(id) != nil { return true }
            $0.waiting[id] = continuation
            return false
        }
        if cancelled { continuation.resume(throwing: AuthenticationError.cancelled) }
    }

    /// Resumes `id` with `result` if it is still waiting.
    func resume(_ id: UInt64, with result: Result<OAuthToken, AuthenticationError>) {
        guard let continuation = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return }
        continuation.resume(with: result.mapError { $0 as any Error })
    }

    /// The waiting request `id` was cancelled: it stops waiting now; the operation goes on.
    func cancel(_ id: UInt64) {
        let continuation = state.withLock {
            guard let continuation = $0.waiting.removeValue(forKey: id) else {
                $0.cancelledEarly.insert(id)
                return nil as Continuation?
            }
            return continuation
        }
        continuation?.resume(throwing: AuthenticationError.cancelled)
    }
}
