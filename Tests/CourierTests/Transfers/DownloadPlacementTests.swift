import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("DownloadPlacement")
struct DownloadPlacementTests {
    let directory: URL
    let response = HTTPURLResponse(
        url: URL(string: "https://example.com/f")!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-placement-test-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private func downloaded(_ text: String = "new") throws -> URL {
        let url = directory.appendingPathComponent("courier-download-\(UUID())")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("the file moves to the destination, creating folders when asked")
    func createsFolders() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let temporary = try downloaded()
        let target = directory.appendingPathComponent("a/b/c.bin")
        let placed = try DownloadPlacement.move(temporary, response: response) { _, _ in
            (target, [.createIntermediateDirectories])
        }
        #expect(placed == target)
        #expect(try Data(contentsOf: target) == Data("new".utf8))
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
    }

    @Test("a missing folder or an existing file fails, keeps the existing file, and removes the download")
    func failuresCleanUp() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let missingFolder = try downloaded()
        #expect(throws: (any Error).self) {
            try DownloadPlacement.move(missingFolder, response: response) { _, _ in
                (directory.appendingPathComponent("absent/x"), [])
            }
        }
        #expect(!FileManager.default.fileExists(atPath: missingFolder.path))

        let existing = directory.appendingPathComponent("existing")
        try Data("old".utf8).write(to: existing)
        let clash = try downloaded()
        #expect(throws: (any Error).self) {
            try DownloadPlacement.move(clash, response: response) { _, _ in (existing, []) }
        }
        #expect(try Data(contentsOf: existing) == Data("old".utf8))
        #expect(!FileManager.default.fileExists(atPath: clash.path))
    }

    @Test("removePreviousFile replaces what is there")
    func replaces() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let existing = directory.appendingPathComponent("existing")
        try Data("old".utf8).write(to: existing)
        _ = try DownloadPlacement.move(try downloaded(), response: response) { _, _ in (existing, [.removePreviousFile])
        }
        #expect(try Data(contentsOf: existing) == Data("new".utf8))
    }

    @Test("a destination that is the temporary file itself keeps it where it is")
    func sameFile() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let temporary = try downloaded()
        let placed = try DownloadPlacement.move(temporary, response: response) { url, _ in (url, []) }
        #expect(placed == temporary)
        #expect(FileManager.default.fileExists(atPath: temporary.path))
    }
}
