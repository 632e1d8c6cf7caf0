import Foundation

/// Where an ``AuthSession`` keeps its token between launches.
///
/// Courier ships ``InMemoryTokenStore``, ``FileTokenStore`` and, on Apple platforms,
/// `KeychainTokenStore` (use that one in apps: never `UserDefaults`). Write your own to keep
/// tokens elsewhere; the session calls it from its actor, one call at a time.
///
/// A store that several sessions share — two sessions in one app, an app and its extensions,
/// several processes on one machine, or a fleet of servers — says how they take turns through
/// ``coordinator``: the sessions then behave as one, refreshing once per expiry among all of
/// them and never deleting a token another one wrote. The stores Courier ships do it already;
/// a store you write does it when you return a coordinator (see <doc:SharingSessionsBetweenProcesses>).
/// Without one, a session assumes it is the store's only user.
public protocol TokenStore: Sendable {
    /// The stored token, or `nil` when there is none.
    ///
    /// - Throws: when the storage cannot be read or holds something that is not a token.
    func load() throws -> OAuthToken?

    /// Stores `token`, replacing what was there; `nil` deletes it.
    ///
    /// - Throws: when the token could not be written. The session then keeps the previous
    ///   token and reports the failure.
    func save(_ token: OAuthToken?) throws

    /// How the sessions that share this store take turns, and hear about each other's writes;
    /// `nil` (the default) for a store that one session uses alone.
    ///
    /// When it is set, a session reads and writes the token only through it, never through
    /// ``load()`` and ``save(_:)``. Return the same coordinator every time: sessions that
    /// share a store must share its coordinator (``InProcessTokenCoordinator`` within one
    /// process, ``LockFileTokenCoordinator`` across processes on one machine, or your own
    /// for a fleet of servers).
    var coordinator: (any TokenStoreCoordinator)? { get }
}

extension TokenStore {
    /// No coordinator: the session is the store's only user.
    public var coordinator: (any TokenStoreCoordinator)? { nil }
}
