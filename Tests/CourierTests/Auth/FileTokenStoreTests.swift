import Courier
import Foundation
import Testing

@Suite("Token stores")
struct TokenStoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-store-\(UUID().uuidString)")
    var file: URL { folder.appendingPathComponent("nested/token.json") }
    let token = OAuthToken(
        accessToken: "at-SECRET", refreshToken: "rt-SECRET", expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
        issuedAt: Date(timeIntervalSince1970: 1_999_996_400))

    @Test("FileTokenStore round-trips a token in a 0600 file and deletes it on nil")
    func roundTrip() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileTokenStore(url: file)
        #expect(try store.load() == nil)
        try store.save(token)
        #expect(try store.load() == token)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        var rotated = token
        rotated.refreshToken = "rt-2"
        try store.save(rotated)
        #expect(try store.load()?.refreshToken == "rt-2")
        let again = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((again[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // No temporary files are left beside it: only the lock files processes take turns through.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path).sorted()
                == ["token.json", "token.json.lock"]
        )
        try store.save(nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(try store.load() == nil)
    }

    @Test("a corrupt file is a clear error and is left untouched")
    func corrupt() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{ not a token".utf8).write(to: file)
        let store = FileTokenStore(url: file)
        #expect {
            try store.load()
        } throws: { error in
            guard case .corrupt(let url) = error as? TokenStoreError else { return false }
            return url == file && "\(error)".contains("left untouched")
        }
        #expect(try Data(contentsOf: file) == Data("{ not a token".utf8))
    }

    @Test("a session over a corrupt file reports storeUnavailable, and signing in replaces the file")
    func sessionOverCorruptFile() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: file)
        let session = AuthSession(store: FileTokenStore(url: file), refresh: { $0 })
        await #expect {
            try await session.validToken()
        } throws: { error in
            if case .storeUnavailable = error as? AuthenticationError { return true }
            return false
        }
        try await session.signIn(token)
        #expect(try FileTokenStore(url: file).load() == token)
    }

    @Test("a write failure is a typed error that names no secret")
    func writeFailureIsTyped() throws {
        let store = FileTokenStore(url: URL(fileURLWithPath: "/proc/courier-cannot-write/token.json"))
        #expect {
            try store.save(token)
        } throws: { error in
            guard case .writeFailed = error as? TokenStoreError else { return false }
            return !"\(error)".contains("SECRET")
        }
    }

    @Test("InMemoryTokenStore keeps what it is given")
    func inMemory() {
        let store = InMemoryTokenStore()
        #expect(store.load() == nil)
        store.save(token)
        #expect(store.load() == token)
        store.save(nil)
        #expect(store.load() == nil)
    }
}
