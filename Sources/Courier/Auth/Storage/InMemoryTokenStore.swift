import Foundation

/// Keeps the token in memory only: it is gone when the process ends.
///
/// Sessions that share one instance behave as one session: they refresh once among all of
/// them and each hears about the others' sign-in and sign-out before its next request.
public final class InMemoryTokenStore: TokenStore {
    private let shared: InProcessTokenCoordinator

    /// Creates a store holding `token`.
    public init(_ token: OAuthToken? = nil) {
        self.shared = InProcessTokenCoordinator(store: MemoryCell(token))
    }

    /// The token.
    public func load() -> OAuthToken? {
        shared.currentToken
    }

    /// Replaces the token; sessions sharing the store adopt it before their next request.
    public func save(_ token: OAuthToken?) {
        shared.replace(with: token)
    }

    /// The coordinator that the sessions sharing this store take turns through.
    public var coordinator: (any TokenStoreCoordinator)? { shared }
}

/// The token of an ``InMemoryTokenStore``; only its coordinator reaches it, under its lock.
private final class MemoryCell: TokenStore {
    private let token: Locked<OAuthToken?>

    init(_ token: OAuthToken?) {
        self.token = Locked(token)
    }

    func load() -> OAuthToken? { token.value }

    func save(_ token: OAuthToken?) {
        self.token.withValue { $0 = token }
    }
}
