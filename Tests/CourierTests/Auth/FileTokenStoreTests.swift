import Courier
import CourierTesting
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
        let session = AuthSession(store: FileTokenStore(url: file), refresh: { $0 }, refreshTimeout: testRefreshTimeout)
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
            // The lock file beside it is the first thing that cannot be created.
            guard case .lockFailed = error as? TokenStoreError else { return false }
            return !"\(error)".contains("SECRET")
        }
    }

    @Test("a directory in the token file's place: the system's reason, one wording, and the directory is never emptied")
    func directoryInPlace() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: file.appendingPathComponent("inside.txt"))
        let store = FileTokenStore(url: file)
        let readError = try #require(throws: TokenStoreError.self) { try store.load() }
        guard case .readFailed(let reason) = readError else {
            Issue.record("expected readFailed, got \(readError)")
            return
        }
        #expect(reason.contains(file.path))
        #expect(reason.contains("Is a directory"), "the operating system's reason: \(reason)")
        #expect(readError.description == readError.localizedDescription)
        #expect(readError.description == "Reading the stored token failed: \(reason).")

        let deleteError = try #require(throws: TokenStoreError.self) { try store.save(nil) }
        #expect("\(deleteError)".contains("Is a directory"), "\(deleteError)")
        #expect(deleteError.description == deleteError.localizedDescription)
        let writeError = try #require(throws: TokenStoreError.self) { try store.save(token) }
        #expect("\(writeError)".contains("cannot replace"), "\(writeError)")
        #expect(!"\(writeError)".contains("SECRET"))
        #expect(try Data(contentsOf: file.appendingPathComponent("inside.txt")) == Data("keep".utf8))
    }

    @Test("the file stays a plain token: an older Courier's file is read, and an older Courier reads the new one")
    func formatCompatibility() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        // What FileTokenStore wrote before generations: OAuthToken's own keys, ISO 8601 dates.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(token).write(to: file)
        let store = FileTokenStore(url: file)
        #expect(try store.load() == token)

        var rotated = token
        rotated.refreshToken = "rt-rotated"
        try store.save(rotated)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(OAuthToken.self, from: Data(contentsOf: file)) == rotated)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("\"storeGeneration\""))
    }

    @Test("reading, checking and signing out of a store never written create nothing on disk")
    func readsChangeNothing() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = AuthSession(store: FileTokenStore(url: file), refresh: { $0 }, refreshTimeout: testRefreshTimeout)
        #expect(await session.needsSignIn)
        await #expect(throws: AuthenticationError.self) { try await session.validToken() }
        try await session.signOut()
        #expect(!FileManager.default.fileExists(atPath: folder.path))

        // A token file an older Courier wrote: using it adds no lock file until a write.
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(token).write(to: file)
        let reader = AuthSession(store: FileTokenStore(url: file), refresh: { $0 }, refreshTimeout: testRefreshTimeout)
        #expect(try await reader.validToken().accessToken == token.accessToken)
        let directory = file.deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["token.json"])
    }

    @Test("every save moves the generation that other instances of the file read before each request")
    func generationMoves() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = FileTokenStore(url: file)
        let reader = try #require(FileTokenStore(url: file).coordinator)
        let before = try await reader.currentGeneration()
        try writer.save(token)
        let afterSave = try #require(try await reader.currentGeneration())
        #expect(afterSave != before)
        #expect(try await reader.read() == StoredToken(token: token, generation: afterSave, change: .signedIn))
        try writer.save(nil)
        let afterDelete = try #require(try await reader.currentGeneration())
        #expect(afterDelete > afterSave)
        #expect(try await reader.read() == StoredToken(token: nil, generation: afterDelete, change: .signedOut))
    }

    @Test("a fenced write at a generation that moved on writes nothing")
    func fencedWrite() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try #require(FileTokenStore(url: file).coordinator)
        let second = try #require(FileTokenStore(url: file).coordinator)
        let seen = try #require(try await first.write(token, change: .signedIn, ifGeneration: nil))
        var newer = token
        newer.accessToken = "at-newer"
        #expect(try await second.write(newer, change: .refreshed, ifGeneration: seen) != nil)
        var late = token
        late.accessToken = "at-late"
        #expect(try await first.write(late, change: .refreshed, ifGeneration: seen) == nil)
        #expect(try await first.write(nil, change: .sessionExpired, ifGeneration: seen) == nil)
        #expect(try FileTokenStore(url: file).load()?.accessToken == "at-newer")
    }

    @Test("the generation survives a deleted lock file: the next write is still newer than the token's")
    func deletedLockFile() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileTokenStore(url: file)
        for _ in 0..<3 { try store.save(token) }
        let coordinator = try #require(store.coordinator)
        let before = try #require(try await coordinator.currentGeneration())
        try FileManager.default.removeItem(at: file.appendingPathExtension("lock"))
        let fresh = try #require(FileTokenStore(url: file).coordinator)
        // The token file's own generation is read, and the new lock file brought up to it.
        #expect(try await fresh.read().generation == before)
        #expect(try await fresh.currentGeneration() == before)
        #expect(try #require(try await fresh.write(token, change: .refreshed, ifGeneration: nil)) > before)
    }

    @Test(
        "a lock file truncated to nothing under a running session reads as generation 0, and the next check repairs it")
    func truncatedLockFile() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileTokenStore(url: file)
        try store.save(token)
        let session = AuthSession(store: store, refresh: { $0 }, refreshTimeout: testRefreshTimeout)
        #expect(try await session.validToken() == token)
        let coordinator = try #require(store.coordinator)
        let before = try #require(try await coordinator.currentGeneration())
        #expect(before > 0)
        // In place, as `: > token.json.lock` does: the descriptor the check keeps open now
        // reads nothing (a mapping of the record would fault here).
        let lockPath = file.appendingPathExtension("lock").path
        #expect(truncate(lockPath, 0) == 0)
        #expect(try await coordinator.currentGeneration() == 0)
        // The session sees a generation it did not read, reads the store again, finds the
        // token newer than the lock file and brings the lock file back up to it.
        #expect(try await session.validToken() == token)
        #expect(try await coordinator.currentGeneration() == before)
        #expect(try await FileTokenStore(url: file).coordinator?.currentGeneration() == before)
    }

    @Test("a FIFO in the lock file's place never hangs a request: a typed error", .timeLimit(.minutes(1)))
    func fifoLockFile() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileTokenStore(url: file).save(token)
        let lockPath = file.appendingPathExtension("lock").path
        try FileManager.default.removeItem(atPath: lockPath)
        #expect(mkfifo(lockPath, 0o600) == 0)
        // A fresh store opens the lock file for its check: a blocking open of a FIFO would wait
        // for a writer that never comes.
        let coordinator = try #require(FileTokenStore(url: file).coordinator)
        #expect(try await coordinator.currentGeneration() == 0)
        // A session cannot bring such a lock file up to the token's generation: it says so.
        let session = AuthSession(store: FileTokenStore(url: file), refresh: { $0 }, refreshTimeout: testRefreshTimeout)
        await #expect {
            try await session.validToken()
        } throws: { error in
            guard case .storeUnavailable(let reason) = error as? AuthenticationError else { return false }
            return "\(reason)".contains("lock file")
        }
    }

    @Test("InMemoryTokenStore keeps what it is given, and its generation moves with every save")
    func inMemory() async throws {
        let store = InMemoryTokenStore()
        let coordinator = try #require(store.coordinator)
        #expect(store.load() == nil)
        let before = try await coordinator.currentGeneration()
        store.save(token)
        #expect(store.load() == token)
        #expect(try await coordinator.currentGeneration() != before)
        store.save(nil)
        #expect(store.load() == nil)
        #expect(try await coordinator.read().change == .signedOut)
    }

    @Test("a store written before coordination existed still compiles and is its session's alone")
    func customStore() async throws {
        struct BoxStore: TokenStore {
            let box = LockIsolated<OAuthToken?>(nil)
            func load() throws -> OAuthToken? { box.value }
            func save(_ token: OAuthToken?) throws { box.setValue(token) }
        }
        let store = BoxStore()
        #expect(store.coordinator == nil)
        let session = AuthSession(store: store, refresh: { $0 }, refreshTimeout: testRefreshTimeout)
        try await session.signIn(token)
        #expect(store.box.value == token)
        try await session.signOut()
        #expect(store.box.value == nil)
    }
}
