import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `KeychainTokenStore`'s logic — the item it reads and writes, add-or-update, the errors it
/// reports, its coordination — over a Keychain double, so it runs on every platform. Only the
/// four Security calls (`SecurityKeychain`) are Apple-only.
@Suite("Keychain token storage")
struct KeychainTokenStorageTests {
    let item = KeychainItem(service: "com.example.app", account: "oauth-token", accessGroup: "TEAM.com.example.app")
    let token = OAuthToken(
        accessToken: "at-SECRET", refreshToken: "rt-SECRET", expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
        issuedAt: Date(timeIntervalSince1970: 1_999_996_400))

    @Test("a missing item is no token; a write adds it, the next one updates it, nil deletes it")
    func roundTrip() throws {
        let keychain = KeychainDouble()
        let storage = KeychainTokenStorage(item: item, client: keychain)
        #expect(try storage.readToken().token == nil)
        try storage.writeToken(token, generation: 1)
        #expect(keychain.calls == ["copy", "update", "add"])
        var rotated = token
        rotated.refreshToken = "rt-2"
        try storage.writeToken(rotated, generation: 2)
        #expect(keychain.calls.suffix(1) == ["update"])
        let read = try storage.readToken()
        #expect(read.token == rotated)
        #expect(read.generation == 2)
        try storage.writeToken(nil, generation: 3)
        #expect(keychain.items[item] == nil)
        // Deleting what is not there is not an error.
        try storage.writeToken(nil, generation: 4)
    }

    @Test("every call names the item by service, account and access group")
    func queries() throws {
        let keychain = KeychainDouble()
        let storage = KeychainTokenStorage(item: item, client: keychain)
        try storage.writeToken(token, generation: 1)
        let other = KeychainItem(service: "com.example.app", account: "oauth-token", accessGroup: nil)
        #expect(try KeychainTokenStorage(item: other, client: keychain).readToken().token == nil)
        #expect(keychain.items.keys.map { $0 } == [item])
    }

    @Test("an item added by another process between the update and the add is updated")
    func addRace() throws {
        let keychain = KeychainDouble()
        keychain.addAnswers = [KeychainStatus.duplicateItem]
        try KeychainTokenStorage(item: item, client: keychain).writeToken(token, generation: 1)
        #expect(keychain.calls == ["update", "add", "update"])
    }

    @Test("an item written by an older KeychainTokenStore (dates as seconds since 2001) is read")
    func olderItem() throws {
        let keychain = KeychainDouble()
        keychain.items[item] = try JSONEncoder().encode(token)
        let read = try KeychainTokenStorage(item: item, client: keychain).readToken()
        #expect(read.token == token)
        #expect(read.generation == nil)
    }

    @Test("Keychain errors say which status and what it means, never the token")
    func errors() throws {
        let keychain = KeychainDouble()
        let storage = KeychainTokenStorage(item: item, client: keychain)
        keychain.copyStatus = -25308
        let locked = try #require(throws: TokenStoreError.self) { try storage.readToken() }
        #expect("\(locked)".contains("errSecInteractionNotAllowed"), "\(locked)")
        #expect("\(locked)".contains("-25308"))
        #expect("\(locked)".contains("locked"))
        keychain.copyStatus = nil
        keychain.updateStatus = -34018
        let entitlement = try #require(throws: TokenStoreError.self) { try storage.writeToken(token, generation: 1) }
        #expect("\(entitlement)".contains("errSecMissingEntitlement"))
        #expect(!"\(entitlement)".contains("SECRET"))
        keychain.updateStatus = nil
        keychain.deleteStatus = -1
        let unknown = try #require(throws: TokenStoreError.self) { try storage.writeToken(nil, generation: 2) }
        #expect("\(unknown)" == "Writing the token failed: Keychain status -1.")
        keychain.deleteStatus = nil
        keychain.items[item] = Data("not a token".utf8)
        let corrupt = try #require(throws: TokenStoreError.self) { try storage.readToken() }
        #expect("\(corrupt)".contains("is not a token"))
    }

    @Test("with a lock directory (an app group's container), two processes' stores coordinate through one lock file")
    func lockDirectory() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-kc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let keychain = KeychainDouble()
        // Two coordinators over one Keychain item and one lock directory: the app and its
        // extension.
        let app = KeychainTokenStorage.coordinator(for: item, client: keychain, lockDirectory: folder)
        let widget = KeychainTokenStorage.coordinator(for: item, client: keychain, lockDirectory: folder)
        let lockFile = KeychainTokenStorage.lockFileURL(for: item, in: folder)
        #expect(lockFile.lastPathComponent == "com.example.app.oauth-token.TEAM.com.example.app.token.lock")
        // The lease lasts 10 minutes: on a loaded machine a minute can pass between two lines,
        // and an expired lease is rightly taken over.
        let lease = try await app.acquireLease(expiringAfter: 600, waitingAtMost: 600)
        await #expect(throws: TokenLeaseTimeout.self) {
            _ = try await widget.acquireLease(expiringAfter: 600, waitingAtMost: 0.05)
        }
        let generation = try #require(try await app.write(token, change: .refreshed, ifGeneration: nil))
        await lease.release()
        #expect(try await widget.currentGeneration() == generation)
        #expect(try await widget.read() == StoredToken(token: token, generation: generation, change: .refreshed))
        #expect(FileManager.default.fileExists(atPath: lockFile.path))
    }

    @Test("without a lock directory, every store of one item in the process shares one coordinator")
    func inProcess() async throws {
        let keychain = KeychainDouble()
        let first = KeychainTokenStorage.coordinator(for: item, client: keychain, lockDirectory: nil)
        let second = KeychainTokenStorage.coordinator(for: item, client: keychain, lockDirectory: nil)
        let before = try await second.currentGeneration()
        _ = try await first.write(token, change: .signedIn, ifGeneration: nil)
        #expect(try await second.currentGeneration() != before)
    }
}

/// A Keychain in memory that records the calls made to it and answers a status when told to.
final class KeychainDouble: KeychainClient {
    private struct State {
        var items: [KeychainItem: Data] = [:]
        var calls: [String] = []
        var copyStatus: Int32?
        var updateStatus: Int32?
        var deleteStatus: Int32?
        var addAnswers: [Int32] = []
    }

    private let state = LockIsolated(State())

    var items: [KeychainItem: Data] {
        get { state.value.items }
        set { state.withValue { $0.items = newValue } }
    }
    var calls: [String] { state.value.calls }
    var copyStatus: Int32? {
        get { state.value.copyStatus }
        set { state.withValue { $0.copyStatus = newValue } }
    }
    var updateStatus: Int32? {
        get { state.value.updateStatus }
        set { state.withValue { $0.updateStatus = newValue } }
    }
    var deleteStatus: Int32? {
        get { state.value.deleteStatus }
        set { state.withValue { $0.deleteStatus = newValue } }
    }
    var addAnswers: [Int32] {
        get { state.value.addAnswers }
        set { state.withValue { $0.addAnswers = newValue } }
    }

    func copyData(_ item: KeychainItem) -> (status: Int32, data: Data?) {
        state.withValue { state in
            state.calls.append("copy")
            if let status = state.copyStatus { return (status, nil) }
            guard let data = state.items[item] else { return (KeychainStatus.itemNotFound, nil) }
            return (KeychainStatus.success, data)
        }
    }

    func add(_ item: KeychainItem, data: Data) -> Int32 {
        state.withValue { state in
            state.calls.append("add")
            if !state.addAnswers.isEmpty {
                // Another process added it first.
                state.items[item] = Data()
                return state.addAnswers.removeFirst()
            }
            guard state.items[item] == nil else { return KeychainStatus.duplicateItem }
            state.items[item] = data
            return KeychainStatus.success
        }
    }

    func update(_ item: KeychainItem, data: Data) -> Int32 {
        state.withValue { state in
            state.calls.append("update")
            if let status = state.updateStatus { return status }
            guard state.items[item] != nil else { return KeychainStatus.itemNotFound }
            state.items[item] = data
            return KeychainStatus.success
        }
    }

    func delete(_ item: KeychainItem) -> Int32 {
        state.withValue { state in
            state.calls.append("delete")
            if let status = state.deleteStatus { return status }
            return state.items.removeValue(forKey: item) == nil ? KeychainStatus.itemNotFound : KeychainStatus.success
        }
    }
}
