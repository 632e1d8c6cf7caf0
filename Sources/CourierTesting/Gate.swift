import Foundation

/// A gate that tasks wait at until the test opens it: the way to hold a refresh, an
/// acquire, a plugin or a fake server's answer exactly as long as the test needs, with no
/// sleep.
///
/// ```swift
/// let gate = Gate()
/// let session = AuthSession(refresh: { token in
///     try await gate.wait()  // held until the test opens the gate
///     return try await refreshToken(token)
/// })
/// let tasks = (0..<3).map { _ in Task { try await provider.request(.profile) } }
/// try await gate.waitForWaiting(1)  // the refresh is under way, and held
/// // … the requests now wait for it; cancel one, look at what was sent …
/// gate.open()
/// ```
///
/// Once open, the gate stays open: later ``wait()`` calls return at once. A gate that is
/// never opened holds a task until it is cancelled, which is also how a test holds code
/// "until the task is cancelled". There is no time-out: give a suite that uses it a
/// `.timeLimit`, so a test that never opens the gate fails instead of hanging.
///
/// For requests held at a transport, use ``GatedTransport``, which records them too.
public final class Gate: Sendable {
    private struct State: Sendable {
        var isOpen = false
        var waiting = 0
    }

    private let state = LockIsolated(State())

    /// Creates a closed gate.
    public init() {}

    /// Whether ``open()`` was called.
    public var isOpen: Bool { state.value.isOpen }

    /// How many tasks wait at the gate now.
    public var waitingCount: Int { state.value.waiting }

    /// Lets every waiting task through, and every later one straight through.
    public func open() {
        state.withValue { $0.isOpen = true }
    }

    /// Waits until the gate is open (returns at once if it is).
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits; the gate
    ///   stays as it is.
    public func wait() async throws {
        state.withValue { $0.waiting += 1 }
        defer { state.withValue { $0.waiting -= 1 } }
        try await state.wait { $0.isOpen }
    }

    /// Waits until at least `count` tasks wait at the gate at once: the sign that the held
    /// code has been reached (a refresh has started, `count` requests are held).
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func waitForWaiting(_ count: Int) async throws {
        try await state.wait { $0.waiting >= count }
    }
}
