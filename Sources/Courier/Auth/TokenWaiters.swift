import Foundation

/// The continuations of requests waiting for a token, behind a lock so that a cancelled
/// request is resumed at once from its cancellation handler, without waiting for the
/// session's actor.
final class TokenWaiters: Sendable {
    typealias Continuation = CheckedContinuation<OAuthToken, any Error>
    /// The lighter form, for requests that wait before they are built
    /// (``AuthSession/waitForRenewal(minimumValidity:)``): no boxed error, no checking
    /// object. It carries the renewal's outcome, the token the request is then signed with
    /// (one hand-off: the request does not ask the session again). Resumed exactly once,
    /// because it leaves the table under the lock.
    /// It carries a reference, not the result itself, so that every frame that waits for it
    /// reserves a pointer for its answer rather than a whole token.
    typealias LightContinuation = UnsafeContinuation<TokenHandoff, Never>

    private enum Waiter {
        case checked(Continuation)
        case light(LightContinuation)

        func resume(with result: Result<OAuthToken, AuthenticationError>) {
            switch self {
            case .checked(let continuation): continuation.resume(with: result.mapError { $0 as any Error })
            case .light(let continuation): continuation.resume(returning: TokenHandoff(result))
            }
        }
    }

    private struct State {
        var waiting: [UInt64: Waiter] = [:]
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    func makeID() -> UInt64 {
        state.withValue {
            $0.nextID += 1
            return $0.nextID
        }
    }

    /// Registers `continuation` for `id`; if `id` was cancelled already, resumes it with
    /// ``AuthenticationError/cancelled`` at once.
    func register(_ id: UInt64, _ continuation: Continuation) {
        register(id, .checked(continuation))
    }

    /// Registers a light continuation, as ``register(_:_:)`` does a checked one.
    func register(_ id: UInt64, light continuation: LightContinuation) {
        register(id, .light(continuation))
    }

    private func register(_ id: UInt64, _ waiter: Waiter) {
        let cancelled = state.withValue {
            if $0.cancelledEarly.remove(id) != nil { return true }
            $0.waiting[id] = waiter
            return false
        }
        if cancelled { waiter.resume(with: .failure(.cancelled)) }
    }

    /// Resumes `id` with `result` if it is still waiting.
    func resume(_ id: UInt64, with result: Result<OAuthToken, AuthenticationError>) {
        guard let waiter = state.withValue({ $0.waiting.removeValue(forKey: id) }) else { return }
        waiter.resume(with: result)
    }

    /// The waiting request `id` was cancelled: it stops waiting now; the operation goes on.
    func cancel(_ id: UInt64) {
        let waiter = state.withValue {
            guard let waiter = $0.waiting.removeValue(forKey: id) else {
                $0.cancelledEarly.insert(id)
                return nil as Waiter?
            }
            return waiter
        }
        waiter?.resume(with: .failure(.cancelled))
    }
}

/// A renewal's outcome handed to a request that waited for it before it was built: the token
/// it is signed with, or the failure it fails with. Made once, when the request is resumed.
final class TokenHandoff: Sendable {
    let outcome: Result<OAuthToken, AuthenticationError>

    init(_ outcome: Result<OAuthToken, AuthenticationError>) {
        self.outcome = outcome
    }
}
