import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The token folder on a small file system (a 64 KiB tmpfs mounted by the test) that fills
/// while tokens rotate, then turns read-only. Needs root and permission to mount: skipped
/// otherwise (the same behaviour is tested with a store that refuses writes in
/// `UnstoredTokenTests`, everywhere).
@Suite(
    "A full disk under FileTokenStore", .serialized, .timeLimit(.minutes(20)),
    .enabled(if: SmallFileSystem.isPermitted, "mounting a tmpfs needs root and permission to mount"))
struct FullDiskTests {
    @Test(
        "a refresh on a full disk keeps the token in memory with the system's reason, writes it once space is freed, and leaves no temporary file"
    )
    func fullThenReadOnly() async throws {
        let disk = try SmallFileSystem()
        defer { disk.unmount() }
        let file = disk.folder.appendingPathComponent("token.json")
        try FileTokenStore(url: file).save(RotatingTokenServer.initialToken())
        let filler = disk.folder.appendingPathComponent("filler")
        try disk.fill(filler)

        let server = RotatingTokenServer()
        let session = AuthSession(
            store: FileTokenStore(url: file), refresh: { try server.refresh($0) }, refreshTimeout: testRefreshTimeout)
        #expect(try await session.validToken().accessToken == "A1")
        let failure = try #require(session.unstoredTokenError)
        #expect("\(failure)".contains("No space left on device"), "\(failure)")
        #expect(!"\(failure)".contains("<redacted>"), "\(failure)")
        #expect(try FileTokenStore(url: file).load()?.refreshToken == "R0")
        // Its own next refresh presents R1, never the retired R0, although the disk still has R0.
        #expect(try await session.refresh(rejecting: try await session.validToken()).accessToken == "A2")
        #expect(server.retiredPresentations.isEmpty)

        try FileManager.default.removeItem(at: filler)
        #expect(try await session.validToken().accessToken == "A2")
        #expect(session.unstoredTokenError == nil)
        #expect(try FileTokenStore(url: file).load()?.refreshToken == "R2")
        let names = try FileManager.default.contentsOfDirectory(atPath: disk.folder.path)
        #expect(!names.contains { $0.hasSuffix(".tmp") }, "\(names)")

    }

    @Test(
        "another session on the same file waits while the disk is full, never presents the retired refresh token, and adopts the new token once space is freed"
    )
    func otherSessionWaits() async throws {
        let disk = try SmallFileSystem()
        defer { disk.unmount() }
        let file = disk.folder.appendingPathComponent("token.json")
        try FileTokenStore(url: file).save(RotatingTokenServer.initialToken())
        let filler = disk.folder.appendingPathComponent("filler")
        try disk.fill(filler)

        let server = RotatingTokenServer()
        let presented = LockIsolated<[String]>([])
        let refresh: AuthSession.RefreshClosure = { token in
            presented.withValue { $0.append(token.refreshToken ?? "none") }
            return try server.refresh(token)
        }
        let holder = AuthSession(store: FileTokenStore(url: file), refresh: refresh, refreshTimeout: testRefreshTimeout)
        let log = LockIsolated<[String]>([])
        let otherStore = FileTokenStore(url: file)
        let coordinator = try #require(otherStore.coordinator)
        let other = AuthSession(
            store: CoordinatedTokenStore(otherStore, coordinator: WatchedCoordinator(inner: coordinator, log: log)),
            refresh: refresh, refreshTimeout: testRefreshTimeout)

        #expect(try await holder.validToken().accessToken == "A1")
        #expect(holder.unstoredTokenError != nil)
        let waiting = Task { () -> Result<OAuthToken, any Error> in
            let result: Result<OAuthToken, any Error>
            do {
                result = .success(try await other.validToken())
            } catch {
                result = .failure(error)
            }
            log.withValue { $0.append("done") }
            return result
        }
        _ = try await log.wait(until: { !$0.isEmpty })
        #expect(log.value == ["waiting"])

        // Space is freed: the holder's own retries write the token, with no request of its own.
        try FileManager.default.removeItem(at: filler)
        let adopted = await waiting.value
        #expect((try? adopted.get())?.accessToken == "A1", "\(adopted)")
        #expect(presented.value == ["R0"])
        #expect(server.retiredPresentations.isEmpty)
        #expect(try FileTokenStore(url: file).load()?.refreshToken == "R1")
        #expect(await other.isSessionExpired == false)
        #expect(await holder.isSessionExpired == false)
    }

    @Test("a read-only file system: the failure names the lock file, the operation and the system's reason")
    func readOnly() async throws {
        let disk = try SmallFileSystem(readOnly: true)
        defer { disk.unmount() }
        let file = disk.folder.appendingPathComponent("token.json")
        #expect {
            try FileTokenStore(url: file).save(RotatingTokenServer.initialToken(expired: false))
        } throws: { error in
            let text = "\(error)"
            guard case .lockFailed = error as? TokenStoreError else { return false }
            return text.contains("Read-only file system") && text.contains("token.json.lock")
        }
    }
}

/// A tmpfs of 64 KiB mounted on a new temporary folder.
struct SmallFileSystem {
    let folder: URL

    /// Whether this process may mount one (root, and a kernel and container that allow it).
    static let isPermitted: Bool = {
        guard getuid() == 0 else { return false }
        guard let disk = try? SmallFileSystem() else { return false }
        disk.unmount()
        return true
    }()

    init(readOnly: Bool = false) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let options = "size=64k,mode=0700" + (readOnly ? ",ro" : "")
        try Self.run(["-t", "tmpfs", "-o", options, "tmpfs", folder.path])
    }

    /// Writes `file` until the file system is full.
    func fill(_ file: URL) throws {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let chunk = Data(repeating: 0x2E, count: 1024)
        while (try? handle.write(contentsOf: chunk)) != nil {}
    }

    func unmount() {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/umount")
        process.arguments = [folder.path]
        try? process.run()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }

    private static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/mount")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw MountFailed(arguments: arguments) }
    }

    struct MountFailed: Error, CustomStringConvertible {
        let arguments: [String]
        var description: String { "mount \(arguments.joined(separator: " ")) failed" }
    }
}
