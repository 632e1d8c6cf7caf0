import Foundation

/// How the sessions that share one stored token take turns, so that they behave as one
/// session: one refresh per expiry among all of them, no token lost, no false logout.
///
/// A session asks its store's coordinator (``TokenStore/coordinator``) for three things:
///
/// - **A generation.** Before signing a request, the session compares
///   ``currentGeneration()`` with the generation it last read; when another session has
///   written since, it reads the store again and uses the newer token, so a process that
///   slept while the others rotated the token does not send the old one first.
/// - **A lease.** Before it refreshes (or acquires, or ends the session), the session takes
///   the lease, reads the store again, and uses a token another session stored meanwhile
///   instead of refreshing. Only a session that finds the token it meant to replace still
///   stored calls the token endpoint: one refresh token is never sent twice.
/// - **A fenced write.** The new token is written only if the store is still at the
///   generation read under the lease, so a holder whose lease expired (a process that was
///   suspended) cannot overwrite a newer token. The session clears the store at the end of a
///   session the same way: only if it still holds the rejected token.
///
/// Courier ships ``InProcessTokenCoordinator`` (sessions in one process),
/// ``LockFileTokenCoordinator`` (processes on one machine, through a lock file; what
/// ``FileTokenStore`` uses), and the stores' own. For a fleet of servers sharing one store,
/// write one over your store and a distributed lease (see <doc:SharingSessionsBetweenProcesses>).
public protocol TokenStoreCoordinator: Sendable {
    /// The generation of the stored token: a number that changes with every write by any
    /// session, or `nil` when no cheap answer exists.
    ///
    /// Called before every signed request, so it must cost little (the file-based
    /// coordinators read 24 bytes of the lock file; a database coordinator may cache the
    /// answer for a moment, or ask its server). It runs on the session's executor
    /// (`nonisolated(nonsending)`): an answer that needs no waiting costs no hop. A
    /// coordinator without a cheap answer returns `nil`; its sessions then hear about other
    /// sessions' tokens only when they take the lease (on a rejected or expiring token).
    ///
    /// - Throws: when the store cannot be reached (a database that is down). A session that
    ///   still has a valid token keeps using it and asks again before the next request; one
    ///   that has none fails the request with ``AuthenticationError/storeUnavailable(_:)``.
    nonisolated(nonsending) func currentGeneration() async throws -> UInt64?

    /// The stored token and the generation of the write that stored it.
    ///
    /// - Throws: when the storage cannot be reached or read, or holds something that is not
    ///   a token.
    nonisolated(nonsending) func read() async throws -> StoredToken

    /// Stores `token` (`nil` deletes it) if the store is still at generation `expected`
    /// (`nil`: whatever it is at), as one atomic step with respect to every other write.
    ///
    /// - Parameters:
    ///   - token: the token to store; `nil` deletes it.
    ///   - change: what the write is, so that the other sessions emit the same event.
    ///   - expected: the generation read under the lease; `nil` for a write that replaces
    ///     whatever is stored (a sign-in or sign-out).
    /// - Returns: the new generation, or `nil` when the store was not at `expected`: another
    ///   session wrote first, and nothing was written.
    /// - Throws: when the token could not be written (or the store could not be reached);
    ///   nothing was written then either.
    nonisolated(nonsending) func write(_ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?)
        async throws -> UInt64?

    /// Takes the lease that a session holds while it renews the token.
    ///
    /// - Parameters:
    ///   - duration: how long the lease lasts if its holder never releases it (a process
    ///     suspended or hung): after that, another session may take it. The session passes
    ///     more than the longest it lets a refresh run (``AuthSession/abandonRefreshAfter``).
    ///   - timeout: how long to wait for a lease held by another session.
    /// - Returns: the lease; release it when the renewal is done and stored.
    /// - Throws: ``TokenLeaseTimeout`` when another session held it all that time,
    ///   `CancellationError` when the task was cancelled, or the error that kept the lease
    ///   from being taken (a lock file that cannot be created).
    func acquireLease(expiringAfter duration: TimeInterval, waitingAtMost timeout: TimeInterval) async throws
        -> any TokenLease
}

/// A lease taken with ``TokenStoreCoordinator/acquireLease(expiringAfter:waitingAtMost:)``.
public protocol TokenLease: Sendable {
    /// Gives the lease up, so the next session may take it. Releasing twice does nothing.
    /// A lease whose store cannot be reached is given up all the same: it expires.
    nonisolated(nonsending) func release() async

    /// Whether the lease is still this holder's: not released, and not taken over by another
    /// session after it expired. The session asks immediately before its refresh request
    /// leaves, so that a holder that was stopped past its lease never sends a refresh token
    /// another session may have rotated since. A holder whose lease is still its own (even
    /// one expired that was not taken over) extends it here by its duration: a session whose
    /// renewed token the store refused keeps its lease, alive this way, until the token is
    /// written. A lease whose store cannot be reached answers `false`: the refresh token
    /// stays home. The default answers `true` (a lease that cannot be lost).
    nonisolated(nonsending) func isHeld() async -> Bool
}

extension TokenLease {
    /// `true`: a lease that cannot be lost.
    public func isHeld() -> Bool { true }
}

/// A coordinator that answers at once, with no waiting (the ones Courier ships: a lock, a
/// `pread`, a small file): the stores built on one keep their synchronous
/// ``TokenStore/load()`` and ``TokenStore/save(_:)``, and the session's freshness check costs
/// no suspension. The protocol's asynchronous requirements call these.
protocol ImmediateTokenCoordinator: TokenStoreCoordinator {
    /// ``TokenStoreCoordinator/currentGeneration()``, at once.
    func generationNow() -> UInt64?
    /// ``TokenStoreCoordinator/read()``, at once.
    func readNow() throws -> StoredToken
    /// ``TokenStoreCoordinator/write(_:change:ifGeneration:)``, at once.
    func writeNow(_ token: OAuthToken?, change: TokenChange, ifGeneration expected: UInt64?) throws -> UInt64?
}

/// The token a shared store holds, and the generation of the write that stored it.
public struct StoredToken: Sendable, Equatable {
    /// The token; `nil` when the store is empty.
    public var token: OAuthToken?
    /// The generation: it changes with every write by any session (0 for a store that no
    /// coordinated session has written yet).
    public var generation: UInt64
    /// What the last write was, when the store knows it.
    public var change: TokenChange?

    /// A stored token.
    public init(token: OAuthToken?, generation: UInt64, change: TokenChange? = nil) {
        self.token = token
        self.generation = generation
        self.change = change
    }
}

/// What a write to a shared store was, so the sessions that read it emit the same event as
/// the one that wrote it.
public enum TokenChange: UInt8, Sendable, Equatable, CaseIterable {
    /// A sign-in (``AuthSession/signIn(_:)``, or a token saved through the store itself).
    case signedIn = 1
    /// A refresh.
    case refreshed = 2
    /// A first token from the session's `acquire` closure.
    case acquired = 3
    /// A sign-out (``AuthSession/signOut()``, or `nil` saved through the store itself).
    case signedOut = 4
    /// The end of a session: the refresh token was rejected.
    case sessionExpired = 5

    /// What a plain ``TokenStore/save(_:)`` of `token` counts as.
    static func saving(_ token: OAuthToken?) -> TokenChange {
        token == nil ? .signedOut : .signedIn
    }
}

/// Another session held the token lease longer than a session was willing to wait.
public struct TokenLeaseTimeout: Error, Sendable, Equatable, CustomStringConvertible {
    /// How long the session waited, in seconds.
    public let seconds: TimeInterval

    /// Creates the error.
    public init(seconds: TimeInterval) {
        self.seconds = seconds
    }

    /// What happened.
    public var description: String {
        "another session held the token lease for more than \(seconds) seconds (it is renewing the token)"
    }
}
