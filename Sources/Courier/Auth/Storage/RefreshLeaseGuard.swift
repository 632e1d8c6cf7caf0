import Foundation

/// The lease under which the current task runs a session's refresh closure: the provider
/// checks it immediately before it hands each request to the transport, so that a process
/// that lost the lease while it was stopped (SIGSTOP, an iOS extension frozen) never sends
/// the refresh token another process has since rotated.
enum RefreshLeaseGuard {
    /// The lease of the refresh running in this task; `nil` outside a refresh closure.
    @TaskLocal static var lease: (any TokenLease)?

    /// Throws ``TokenLeaseLost`` when this task runs a refresh whose lease another session
    /// has taken over (or whose store cannot be reached to say).
    nonisolated(nonsending) static func check() async throws(TokenLeaseLost) {
        if let lease, await !lease.isHeld() { throw TokenLeaseLost() }
    }
}

/// A refresh lost its lease before its request left (its process was stopped, or hung, past
/// the lease's expiry, and another session took the lease over): the request was not sent,
/// so the refresh token, which another session may have rotated since, never reached the
/// server. The session adopts the token the other session stores.
public struct TokenLeaseLost: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// Creates the error.
    public init() {}

    /// What happened.
    public var description: String {
        "the token lease was taken over by another session while this one was stopped; the refresh request was not sent"
    }

    /// The ``description`` as a sentence.
    public var errorDescription: String? { ErrorText.sentence(description) }
}
