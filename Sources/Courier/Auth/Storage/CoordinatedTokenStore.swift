import Foundation

/// Any ``TokenStore`` shared by several sessions: the store you already have, with a
/// coordinator attached, so that its sessions behave as one.
///
/// ```swift
/// // Several sessions of one process:
/// let store = CoordinatedTokenStore(sharingWithinProcess: DefaultsTokenStore())
/// // An app and its extensions (a lock file in the app group's container):
/// let shared = CoordinatedTokenStore(
///     DefaultsTokenStore(), lockFile: containerURL.appendingPathComponent("token.lock"))
/// ```
///
/// Create it once and give the same instance to every session of the process: the sessions
/// of one process share a coordinator.
public struct CoordinatedTokenStore: TokenStore {
    /// The store that holds the token.
    public let base: any TokenStore
    private let shared: any TokenStoreCoordinator

    /// `base` with the coordinator `coordinator`, which reads and writes `base`.
    public init(_ base: any TokenStore, coordinator: any TokenStoreCoordinator) {
        self.base = base
        self.shared = coordinator
    }

    /// `base`, shared by the sessions of this process (``InProcessTokenCoordinator``).
    public init(sharingWithinProcess base: any TokenStore) {
        self.init(base, coordinator: InProcessTokenCoordinator(store: base))
    }

    /// `base`, shared by processes through the lock file at `lockFile`
    /// (``LockFileTokenCoordinator``).
    public init(_ base: any TokenStore, lockFile: URL) {
        self.init(base, coordinator: LockFileTokenCoordinator(lockFile: lockFile, store: base))
    }

    /// The stored token, read through the coordinator when it answers at once (the ones
    /// Courier ships), or from ``base`` (a coordinator of yours, which may have to wait).
    public func load() throws -> OAuthToken? {
        if let immediate = shared as? any ImmediateTokenCoordinator { return try immediate.readNow().token }
        return try base.load()
    }

    /// Stores `token` through the coordinator when it answers at once (the ones Courier
    /// ships), so the sessions sharing the store hear of it before their next request.
    /// With a coordinator of yours, which may have to wait, it is saved to ``base`` directly:
    /// use ``AuthSession/signIn(_:)`` and ``AuthSession/signOut()`` to change the token that
    /// sessions share, or write it through your coordinator.
    public func save(_ token: OAuthToken?) throws {
        if let immediate = shared as? any ImmediateTokenCoordinator {
            _ = try immediate.writeNow(token, change: .saving(token), ifGeneration: nil)
        } else {
            try base.save(token)
        }
    }

    /// The coordinator.
    public var coordinator: (any TokenStoreCoordinator)? { shared }
}
