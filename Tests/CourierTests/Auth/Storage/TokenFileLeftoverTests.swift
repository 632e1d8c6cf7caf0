import Courier
import Foundation
import Testing

/// A writer killed (`kill -9`) between creating its temporary file and renaming it into place
/// leaves `.token.json.<UUID>.tmp`, holding a full token. The next write, which holds the lock
/// file's guard (so no live writer is mid-write), removes them; nothing else is touched.
@Suite("Token file leftovers")
struct TokenFileLeftoverTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-leftover-\(UUID().uuidString)")

    @Test("dead writers' temporary files are removed by the next write; other files are left alone")
    func removedOnWrite() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("token.json")
        let store = FileTokenStore(url: file)
        try store.save(OAuthToken(accessToken: "A0", refreshToken: "R0"))
        let leftovers = (0..<22).map { _ in folder.appendingPathComponent(".token.json.\(UUID().uuidString).tmp") }
        for leftover in leftovers { try Data(#"{"access_token":"A-dead"}"#.utf8).write(to: leftover) }
        let others = [
            ".other.json.\(UUID().uuidString).tmp", ".token.json.not-a-uuid.tmp", "token.json.bak", "notes.tmp",
        ]
        .map { folder.appendingPathComponent($0) }
        for other in others { try Data("keep".utf8).write(to: other) }

        try store.save(OAuthToken(accessToken: "A1", refreshToken: "R1"))

        for leftover in leftovers { #expect(!FileManager.default.fileExists(atPath: leftover.path)) }
        for other in others {
            #expect(FileManager.default.fileExists(atPath: other.path), "\(other.lastPathComponent)")
        }
        #expect(try store.load()?.accessToken == "A1")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.contains { $0.hasPrefix(".token.json.") && $0.hasSuffix(".tmp") && !$0.contains("not-a-uuid") })
    }
}
