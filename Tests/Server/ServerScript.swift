import Foundation

/// Finds `server.py`.
enum ServerScript {
    /// The directory of this source file, which is where `server.py` lives.
    private static let ownDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// `$COURIER_TEST_SERVER_SCRIPT`, else `server.py` next to this file, else the first
    /// `Tests/Server/server.py` found above the caller's file.
    static func locate(callerFile: String) throws -> URL {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["COURIER_TEST_SERVER_SCRIPT"], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override))
        }
        candidates.append(ownDirectory.appendingPathComponent("server.py"))
        var directory = URL(fileURLWithPath: callerFile).deletingLastPathComponent()
        while directory.path != "/" && !directory.path.isEmpty {
            candidates.append(directory.appendingPathComponent("Tests/Server/server.py"))
            directory.deleteLastPathComponent()
        }
        let fileManager = FileManager.default
        if let found = candidates.first(where: { fileManager.isReadableFile(atPath: $0.path) }) {
            return found
        }
        throw TestServerError.scriptNotFound(searched: candidates.map(\.path))
    }
}
