import Foundation

/// The Keychain item a `KeychainTokenStore` keeps its token in: a generic password,
/// readable after the first unlock of the device and never in a backup.
struct KeychainItem: Hashable, Sendable {
    let service: String
    let account: String
    let accessGroup: String?
}

/// The four Security calls a `KeychainTokenStore` makes, and nothing else: everything above
/// them (the queries, the add-or-update, the error messages, the lease) is plain Swift that
/// is tested on every platform with a Keychain double. On Apple platforms `SecurityKeychain`
/// makes the calls (`SecItemCopyMatching`, `SecItemAdd`, `SecItemUpdate`, `SecItemDelete`).
///
/// Each returns the `OSStatus`.
protocol KeychainClient: Sendable {
    /// The item's data, or `errSecItemNotFound`.
    func copyData(_ item: KeychainItem) -> (status: Int32, data: Data?)
    /// Adds the item with `data`; `errSecDuplicateItem` when it exists.
    func add(_ item: KeychainItem, data: Data) -> Int32
    /// Replaces the item's data; `errSecItemNotFound` when it does not exist.
    func update(_ item: KeychainItem, data: Data) -> Int32
    /// Deletes the item; `errSecItemNotFound` when it does not exist.
    func delete(_ item: KeychainItem) -> Int32
}

/// The `OSStatus` values the Keychain logic tells apart (Security's `SecBase.h`).
enum KeychainStatus {
    static let success: Int32 = 0
    static let itemNotFound: Int32 = -25300
    static let duplicateItem: Int32 = -25299

    /// What `status` means, for a ``TokenStoreError``: the constant's name, its number, and
    /// what to do about it for the ones an app meets.
    static func explanation(_ status: Int32) -> String {
        let known: [Int32: String] = [
            -25308:
                "errSecInteractionNotAllowed: the Keychain cannot be used while the device is locked "
                + "(the item is readable after the first unlock)",
            -34018:
                "errSecMissingEntitlement: the app is not entitled to the Keychain access group "
                + "(keychain-access-groups)",
            -25293: "errSecAuthFailed: the user name or passphrase is wrong",
            -25291: "errSecNotAvailable: no Keychain is available",
            -25299: "errSecDuplicateItem: the item already exists",
            -25300: "errSecItemNotFound: the item does not exist",
            -50: "errSecParam: a parameter is not valid",
            -108: "errSecAllocate: out of memory",
            -26276: "errSecInternalComponent: an internal component failed",
        ]
        return "Keychain status \(status)" + (known[status].map { " (\($0))" } ?? "")
    }
}

/// A Keychain item holding the token with the generation of its write, in the JSON
/// `KeychainTokenStore` has always written (dates as seconds since 2001), plus
/// `storeGeneration`.
struct KeychainTokenStorage: GenerationalStorage {
    let item: KeychainItem
    let client: any KeychainClient

    func readToken() throws -> (token: OAuthToken?, generation: UInt64?) {
        let (status, data) = client.copyData(item)
        if status == KeychainStatus.itemNotFound { return (nil, nil) }
        guard status == KeychainStatus.success else {
            throw TokenStoreError.readFailed(KeychainStatus.explanation(status))
        }
        guard let data, let contents = try? TokenFileContents.decode(data, iso8601: false) else {
            throw TokenStoreError.readFailed("the Keychain item \(item.service)/\(item.account) is not a token")
        }
        return (contents.token, contents.generation)
    }

    func writeToken(_ token: OAuthToken?, generation: UInt64) throws {
        guard let token else {
            let status = client.delete(item)
            guard status == KeychainStatus.success || status == KeychainStatus.itemNotFound else {
                throw TokenStoreError.writeFailed(KeychainStatus.explanation(status))
            }
            return
        }
        let data: Data
        do {
            data = try TokenFileContents(token: token, generation: generation).encoded(iso8601: false)
        } catch {
            throw TokenStoreError.writeFailed("cannot encode the token")
        }
        var status = client.update(item, data: data)
        if status == KeychainStatus.itemNotFound {
            status = client.add(item, data: data)
            // Another process added it in between: it exists now, so update it.
            if status == KeychainStatus.duplicateItem { status = client.update(item, data: data) }
        }
        guard status == KeychainStatus.success else {
            throw TokenStoreError.writeFailed(KeychainStatus.explanation(status))
        }
    }

    /// The coordinator for `item`: through a lock file in `lockDirectory` (an app group's
    /// container, so the app and its extensions share it), else one per item for the whole
    /// process.
    static func coordinator(for item: KeychainItem, client: any KeychainClient, lockDirectory: URL?)
        -> any ImmediateTokenCoordinator
    {
        let storage = KeychainTokenStorage(item: item, client: client)
        guard let lockDirectory else {
            return inProcess.withValue { coordinators in
                if let existing = coordinators[item] { return existing }
                let coordinator = InProcessTokenCoordinator(store: StorageStore(storage: storage))
                coordinators[item] = coordinator
                return coordinator
            }
        }
        return LockFileTokenCoordinator(lockFile: lockFileURL(for: item, in: lockDirectory), storage: storage)
    }

    /// `<service>.<account>[.<group>].token.lock`, with every character that is not a letter,
    /// a digit, `.`, `-` or `_` replaced by `_`.
    static func lockFileURL(for item: KeychainItem, in directory: URL) -> URL {
        let parts = [item.service, item.account] + (item.accessGroup.map { [$0] } ?? [])
        let name = parts.map { part in
            String(
                part.unicodeScalars.map { scalar in
                    CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)
                        ? Character(scalar) : "_"
                })
        }.joined(separator: ".")
        return directory.appendingPathComponent("\(name).token.lock")
    }

    /// The coordinators of the items used without a lock directory, one per item, so that
    /// every `KeychainTokenStore` of one item in the process shares one.
    private static let inProcess = Locked<[KeychainItem: InProcessTokenCoordinator]>([:])
}

/// A ``GenerationalStorage`` as a ``TokenStore``, for ``InProcessTokenCoordinator``.
private struct StorageStore: TokenStore {
    let storage: any GenerationalStorage

    func load() throws -> OAuthToken? { try storage.readToken().token }
    func save(_ token: OAuthToken?) throws { try storage.writeToken(token, generation: 0) }
}
