#if canImport(Security)
    import Foundation
    import Security

    /// Keeps the token in the Keychain, as a generic password item.
    ///
    /// The item is readable after the first unlock of the device
    /// (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`), so background refreshes work
    /// while the screen is locked, and it never leaves the device in a backup.
    ///
    /// **An app and its extensions** (a widget, a share or notification extension) share the
    /// token through a Keychain access group, and take turns refreshing it through a lock file
    /// in their app group's container: pass both, and their sessions behave as one (one
    /// refresh per expiry, no false logout; see <doc:SharingSessionsBetweenProcesses>).
    ///
    /// ```swift
    /// let container = FileManager.default.containerURL(
    ///     forSecurityApplicationGroupIdentifier: "group.com.example.app")!
    /// let store = KeychainTokenStore(
    ///     service: "com.example.app", accessGroup: "TEAMID.com.example.app", lockDirectory: container)
    /// ```
    ///
    /// Without a lock directory, the sessions of one process that use the same item still
    /// behave as one.
    public struct KeychainTokenStore: TokenStore {
        /// The item's service name, such as your bundle identifier.
        public let service: String
        /// The item's account name.
        public let account: String
        /// The access group to share the item with app extensions, if any.
        public let accessGroup: String?
        /// Where the lock file that processes take turns through lives (an app group's
        /// container), if the item is shared by several processes.
        public let lockDirectory: URL?
        private let shared: any ImmediateTokenCoordinator

        /// A store for the item identified by `service` and `account`.
        ///
        /// - Parameters:
        ///   - accessGroup: the Keychain access group shared with your extensions, if any.
        ///   - lockDirectory: a directory every process sharing the item can write (the app
        ///     group's container); the lock file `<service>.<account>.token.lock` goes there.
        public init(
            service: String, account: String = "oauth-token", accessGroup: String? = nil, lockDirectory: URL? = nil
        ) {
            self.service = service
            self.account = account
            self.accessGroup = accessGroup
            self.lockDirectory = lockDirectory
            self.shared = KeychainTokenStorage.coordinator(
                for: KeychainItem(service: service, account: account, accessGroup: accessGroup),
                client: SecurityKeychain(), lockDirectory: lockDirectory)
        }

        /// The stored token, or `nil` when there is no item.
        ///
        /// - Throws: ``TokenStoreError/readFailed(_:)`` naming the Keychain status (such as
        ///   `errSecInteractionNotAllowed` before the first unlock).
        public func load() throws -> OAuthToken? {
            try shared.readNow().token
        }

        /// Stores `token` (adding or updating the item), or deletes the item for `nil`.
        ///
        /// - Throws: ``TokenStoreError/writeFailed(_:)`` naming the Keychain status.
        public func save(_ token: OAuthToken?) throws {
            _ = try shared.writeNow(token, change: .saving(token), ifGeneration: nil)
        }

        /// The coordinator: through the lock file in ``lockDirectory``, or within the process.
        public var coordinator: (any TokenStoreCoordinator)? { shared }
    }

    /// The Security framework's Keychain: the only code here that calls it.
    struct SecurityKeychain: KeychainClient {
        private func query(_ item: KeychainItem) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: item.service,
                kSecAttrAccount as String: item.account,
            ]
            if let accessGroup = item.accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        private func attributes(_ data: Data) -> [String: Any] {
            [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
        }

        func copyData(_ item: KeychainItem) -> (status: Int32, data: Data?) {
            var request = query(item)
            request[kSecReturnData as String] = true
            request[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: AnyObject?
            let status = SecItemCopyMatching(request as CFDictionary, &result)
            return (status, result as? Data)
        }

        func add(_ item: KeychainItem, data: Data) -> Int32 {
            var request = query(item)
            request.merge(attributes(data)) { _, new in new }
            return SecItemAdd(request as CFDictionary, nil)
        }

        func update(_ item: KeychainItem, data: Data) -> Int32 {
            SecItemUpdate(query(item) as CFDictionary, attributes(data) as CFDictionary)
        }

        func delete(_ item: KeychainItem) -> Int32 {
            SecItemDelete(query(item) as CFDictionary)
        }
    }
#endif
