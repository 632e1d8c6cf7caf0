import Foundation

/// The token file's contents: the token as ``OAuthToken`` encodes it, plus the generation of
/// the write that stored it (`storeGeneration`).
///
/// Both directions stay readable: a file written before generations existed has no
/// `storeGeneration` (it reads as unknown), and a Courier that predates them reads a newer
/// file as a plain token, since decoding ignores the key it does not know.
struct TokenFileContents: Codable {
    var token: OAuthToken
    var generation: UInt64?

    private enum Keys: String, CodingKey {
        case storeGeneration
    }

    init(token: OAuthToken, generation: UInt64?) {
        self.token = token
        self.generation = generation
    }

    init(from decoder: any Decoder) throws {
        token = try OAuthToken(from: decoder)
        generation = try decoder.container(keyedBy: Keys.self).decodeIfPresent(UInt64.self, forKey: .storeGeneration)
    }

    func encode(to encoder: any Encoder) throws {
        try token.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(generation, forKey: .storeGeneration)
    }

    /// The contents of `data`. `iso8601`: dates as the token file writes them; otherwise as
    /// `JSONEncoder` does by default (seconds since 2001), as Keychain items always have.
    static func decode(_ data: Data, iso8601: Bool = true) throws -> TokenFileContents {
        let decoder = JSONDecoder()
        if iso8601 { decoder.dateDecodingStrategy = .iso8601 }
        return try decoder.decode(TokenFileContents.self, from: data)
    }

    /// The JSON, with dates as ``decode(_:iso8601:)`` reads them.
    func encoded(iso8601: Bool = true) throws -> Data {
        let encoder = JSONEncoder()
        if iso8601 { encoder.dateEncodingStrategy = .iso8601 }
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }
}

/// Where a coordinated store keeps the token itself, with the generation of each write.
///
/// ``LockFileTokenCoordinator`` keeps the generation in its lock file too; a storage that
/// stores it beside the token as well (the token file, the Keychain item) lets the
/// generation survive a lock file that was deleted.
protocol GenerationalStorage: Sendable {
    /// The token and the generation stored with it (`nil`: none stored, an older format).
    func readToken() throws -> (token: OAuthToken?, generation: UInt64?)
    /// Stores `token` with `generation`, or deletes it for `nil`, atomically.
    func writeToken(_ token: OAuthToken?, generation: UInt64) throws
}

/// Any ``TokenStore`` as a storage, without a generation of its own.
struct PlainStoreStorage: GenerationalStorage {
    let store: any TokenStore

    func readToken() throws -> (token: OAuthToken?, generation: UInt64?) {
        (try store.load(), nil)
    }

    func writeToken(_ token: OAuthToken?, generation: UInt64) throws {
        try store.save(token)
    }
}

/// A JSON file readable by its owner only (mode 0600), replaced atomically on every write.
struct TokenFileStorage: GenerationalStorage {
    let url: URL

    func readToken() throws -> (token: OAuthToken?, generation: UInt64?) {
        let descriptor = POSIX.open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return (nil, nil) }
            throw TokenStoreError.readFailed("cannot open \(url.path): \(POSIX.lastError)")
        }
        defer { POSIX.close(descriptor) }
        // A directory opens; reading it fails with EISDIR, which is the reason to report.
        guard let data = POSIX.readAll(descriptor) else {
            throw TokenStoreError.readFailed("cannot read \(url.path): \(POSIX.lastError)")
        }
        do {
            let contents = try TokenFileContents.decode(data)
            return (contents.token, contents.generation)
        } catch {
            throw TokenStoreError.corrupt(url)
        }
    }

    func writeToken(_ token: OAuthToken?, generation: UInt64) throws {
        removeLeftovers()
        guard let token else {
            // unlink, never a recursive delete: a directory in the token's place is reported,
            // not emptied.
            if unlink(url.path) != 0 && errno != ENOENT {
                throw TokenStoreError.writeFailed("cannot delete \(url.path): \(POSIX.lastError)")
            }
            return
        }
        let data: Data
        do {
            data = try TokenFileContents(token: token, generation: generation).encoded()
        } catch {
            throw TokenStoreError.writeFailed("cannot encode the token")
        }
        let directory = url.deletingLastPathComponent()
        try Self.createDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        try Self.writeOwnerOnly(data, to: temporary)
        // The one step that makes the new token visible: another process sees the old file or
        // the new one, never a part of either, even if this one is killed at any moment.
        guard rename(temporary.path, url.path) == 0 else {
            let reason = POSIX.lastError
            unlink(temporary.path)
            throw TokenStoreError.writeFailed("cannot replace \(url.path): \(reason)")
        }
    }

    /// The temporary files of writers that died mid-write (`kill -9` between creating the
    /// file and renaming it), each holding a full token: `.<name>.<UUID>.tmp` beside the file.
    ///
    /// Only called from a write, which holds the lock file's guard (``LockFile/withGuard(_:)``,
    /// an `flock` the system frees when its holder dies): no other writer is alive in the middle
    /// of a write meanwhile, so every such file is a dead writer's. A writer that fails removes
    /// its own.
    func removeLeftovers() {
        let directory = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let middle = name.dropFirst(prefix.count).dropLast(".tmp".count)
            guard UUID(uuidString: String(middle)) != nil else { continue }
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// `mkdir -p`, with the system's reason when it fails (a file where a directory should
    /// be, no permission).
    static func createDirectory(_ directory: URL) throws {
        var missing: [String] = []
        var path = directory.standardizedFileURL.path
        while !path.isEmpty, path != "/", !POSIX.isDirectory(path) {
            missing.append(path)
            path = (path as NSString).deletingLastPathComponent
        }
        for path in missing.reversed() where mkdir(path, 0o777) != 0 && errno != EEXIST {
            throw TokenStoreError.writeFailed("cannot create the directory \(path): \(POSIX.lastError)")
        }
    }

    /// Creates `url` with mode 0600 from the start (never world-readable, even briefly),
    /// writes `data` and flushes it to disk before the rename makes it the token.
    private static func writeOwnerOnly(_ data: Data, to url: URL) throws {
        let descriptor = POSIX.open(url.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw TokenStoreError.writeFailed("cannot create \(url.path): \(POSIX.lastError)")
        }
        var failure: String?
        if !POSIX.write(descriptor, data) {
            failure = "cannot write \(url.path): \(POSIX.lastError)"
        } else if fsync(descriptor) != 0 {
            failure = "cannot flush \(url.path): \(POSIX.lastError)"
        }
        POSIX.close(descriptor)
        if let failure {
            unlink(url.path)
            throw TokenStoreError.writeFailed(failure)
        }
    }
}
