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

    /// The stored token, read through the coordinator.
    public func load() throws -> OAuthToken? {
        try shared.read().token
    }

    /// Stores `token` through the coordinator, so the sessions sharing the store hear of it.
    public func save(_ token: OAuthToken?) throws {
        _ = try shared.write(token, change: .saving(token), ifGeneration: nil)
    }

    /// The coordinator.
    public var coordinator: (any TokenStoreCoordinator)? { shared }
}
