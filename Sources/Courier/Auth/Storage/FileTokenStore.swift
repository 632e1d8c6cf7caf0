import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps the token in a JSON file readable by its owner only (mode 0600).
///
/// Every save writes a new file beside the old one and renames it into place, so a crash
/// mid-write never leaves half a token. A file that does not hold a token is reported as
/// ``TokenStoreError/corrupt(_:)`` and left untouched.
///
/// Suited to command-line tools and servers; on Apple platforms apps should use
/// `KeychainTokenStore`.
public struct FileTokenStore: TokenStore {
    /// The file.
    public let url: URL

    /// A store at `url`; its directory is created on the first save if missing.
    public init(url: URL) {
        self.url = url
    }

    /// The stored token, or `nil` if the file does not exist.
    ///
    /// - Throws: ``TokenStoreError/corrupt(_:)`` when the file is not a token, or
    ///   ``TokenStoreError/readFailed(_:)``.
    public func load() throws -> OAuthToken? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw TokenStoreError.readFailed("cannot read \(url.path)")
        }
        do {
            return try JSONDecoder.tokenFile.decode(OAuthToken.self, from: data)
        } catch {
            throw TokenStoreError.corrupt(url)
        }
    }

    /// Writes `token` atomically with mode 0600, or deletes the file for `nil`.
    ///
    /// - Throws: ``TokenStoreError/writeFailed(_:)``.
    public func save(_ token: OAuthToken?) throws {
        let fileManager = FileManager.default
        guard let token else {
            if fileManager.fileExists(atPath: url.path) {
                do {
                    try fileManager.removeItem(at: url)
                } catch {
                    throw TokenStoreError.writeFailed("cannot delete \(url.path)")
                }
            }
            return
        }
        let data: Data
        do {
            data = try JSONEncoder.tokenFile.encode(token)
        } catch {
            throw TokenStoreError.writeFailed("cannot encode the token")
        }
        let directory = url.deletingLastPathComponent()
        do {
            try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw TokenStoreError.writeFailed("cannot create \(directory.path)")
        }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        try Self.writeOwnerOnly(data, to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw TokenStoreError.writeFailed("cannot replace \(url.path): \(reason)")
        }
    }

    /// Creates `url` with mode 0600 from the start (never world-readable, even briefly) and
    /// writes `data` to it.
    private static func writeOwnerOnly(_ data: Data, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw TokenStoreError.writeFailed("cannot create \(url.path): \(String(cString: strerror(errno)))")
        }
        var failed = false
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 {
                    failed = true
                    return
                }
                offset += written
            }
        }
        if fsync(descriptor) != 0 { failed = true }
        close(descriptor)
        if failed {
            unlink(url.path)
            throw TokenStoreError.writeFailed("cannot write \(url.path)")
        }
    }
}

extension JSONEncoder {
    fileprivate static var tokenFile: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    fileprivate static var tokenFile: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
