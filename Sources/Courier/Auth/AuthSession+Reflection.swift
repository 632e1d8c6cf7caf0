extension AuthSession: CustomReflectable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What `dump(session)` and debuggers show: its settings, never its state (which holds
    /// the token). Read ``token`` for that; its own mirror hides the secrets.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: ["refreshTimeout": refreshTimeout], displayStyle: .class)
    }

    /// `AuthSession(refreshTimeout: 30.0 s)`; never the token.
    public nonisolated var description: String { "AuthSession(refreshTimeout: \(refreshTimeout) s)" }

    /// Same as ``description``.
    public nonisolated var debugDescription: String { description }
}

extension InMemoryTokenStore: CustomReflectable {
    /// What `dump(store)` shows: the token through its own mirror, which hides the secrets.
    public var customMirror: Mirror {
        Mirror(self, children: ["token": load() as Any], displayStyle: .class)
    }
}
