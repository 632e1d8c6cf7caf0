import Foundation

/// The continuations of requests waiting for a token, behind a lock so that a cancelled
/// request is resumed at once from its cancellation handler, without waiting for the
/// session's actor.
final class TokenWaiters: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<OAuthToken, any Error>

    // `lock` guards `waiting`, `cancelledEarly` and `nextID`.
    private let lock = NSLock()
    private var waiting: [UInt64: Continuation] = [:]
    private var cancelledEarly: Set<UInt64> = []
    private var nextID: UInt64 = 0

    func makeID() -> UInt64 {
        lock.withLock {
            nextID += 1
            return nextID
        }
    }

    /// Registers `continuation` for `id`; if `id` was cancelled already, resumes it with
    /// ``AuthenticationError/cancelled`` at once.
    func register(_ id: UInt64, _ continuation: Continuation) {
        let cancelled = lock.withLock {
            if cancelledEarly.remove(id) != nil { return true }
            waiting[id] = continuation
            return false
        }
        if cancelled { continuation.resume(throwing: AuthenticationError.cancelled) }
    }

    /// Resumes `id` with `result` if it is still waiting.
    func resume(_ id: UInt64, with result: Result<OAuthToken, AuthenticationError>) {
        guard let continuation = lock.withLock({ waiting.removeValue(forKey: id) }) else { return }
        continuation.resume(with: result.mapError { $0 as any Error })
    }

    /// The waiting request `id` was cancelled: it stops waiting now; the operation goes on.
    func cancel(_ id: UInt64) {
        let continuation = lock.withLock {
            guard let continuation = waiting.removeValue(forKey: id) else {
                cancelledEarly.insert(id)
                return nil as Continuation?
            }
            return continuation
        }
        continuation?.resume(throwing: AuthenticationError.cancelled)
    }
}
