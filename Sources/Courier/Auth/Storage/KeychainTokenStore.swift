#if canImport(Security)
    import Foundation
    import Security

    /// Keeps the token in the Keychain, as a generic password item.
    ///
    /// The item is readable after the first unlock of the device
    /// (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`), so background refreshes work
    /// while the screen is locked, and it never leaves the device in a backup.
    public struct KeychainTokenStore: TokenStore {
        /// The item's service name, such as your bundle identifier.
        public let service: String
        /// The item's account name.
        public let account: String
        /// The access group to share the item with app extensions, if any.
        public let accessGroup: String?

        /// A store for the item identified by `service` and `account`.
        public init(service: String, account: String = "oauth-token", accessGroup: String? = nil) {
            self.service = service
            self.account = account
            self.accessGroup = accessGroup
        }

        private var query: [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        /// The stored token, or `nil` when there is no item.
        public func load() throws -> OAuthToken? {
            var request = query
            request[kSecReturnData as String] = true
            request[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: AnyObject?
            let status = SecItemCopyMatching(request as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = result as? Data else {
                throw TokenStoreError.readFailed("Keychain status \(status)")
            }
            do {
                return try JSONDecoder().decode(OAuthToken.self, from: data)
            } catch {
                throw TokenStoreError.readFailed("the Keychain item is not a token")
            }
        }

        /// Stores `token` (adding or updating the item), or deletes the item for `nil`.
        public func save(_ token: OAuthToken?) throws {
            guard let token else {
                let status = SecItemDelete(query as CFDictionary)
                guard status == errSecSuccess || status == errSecItemNotFound else {
                    throw TokenStoreError.writeFailed("Keychain status \(status)")
                }
                return
            }
            let data = try JSONEncoder().encode(token)
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                var item = query
                item.merge(attributes) { _, new in new }
                status = SecItemAdd(item as CFDictionary, nil)
            }
            guard status == errSecSuccess else {
                throw TokenStoreError.writeFailed("Keychain status \(status)")
            }
        }
    }
#endif
