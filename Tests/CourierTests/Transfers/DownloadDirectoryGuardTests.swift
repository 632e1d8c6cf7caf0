import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download never replaces a directory, whatever its destination closure returns: the
/// server's `..` or empty file name once made `.removePreviousFile` delete a whole folder.
@Suite("A download never replaces a directory")
struct DownloadDirectoryGuardTests {
    let root: URL
    let downloads: URL
    let response = HTTPURLResponse(
        url: URL(string: "https://example.com/f")!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-dir-guard-\(UUID())")
        downloads = root.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: downloads.appendingPathComponent("keep.txt"))
        try Data("outside".utf8).write(to: root.appendingPathComponent("outside.txt"))
    }

    private func downloaded() throws -> URL {
        let url = root.appendingPathComponent("courier-download-\(UUID())")
        try Data("new".utf8).write(to: url)
        return url
    }

    /// The tree under `root` is as `init` made it.
    private func expectUntouched() throws {
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: downloads.path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(try Data(contentsOf: downloads.appendingPathComponent("keep.txt")) == Data("keep".utf8))
        #expect(try Data(contentsOf: root.appendingPathComponent("outside.txt")) == Data("outside".utf8))
    }

    /// Destinations that name `downloads` itself or its parent, as a server-chosen name
    /// appended to `downloads` can.
    static let directoryNames = ["..", "", ".", "./", "../downloads", "../..", "keep.txt/.."]

    @Test(
        "with every option, a destination that resolves to a directory is a typed error and nothing is touched",
        arguments: directoryNames)
    func directoryDestination(name: String) throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let temporary = try downloaded()
        let target = downloads.appendingPathComponent(name)
        #expect(throws: DownloadPlacementError.self) {
            try DownloadPlacement.move(temporary, response: response) { _, _ in
                (target, [.removePreviousFile, .createIntermediateDirectories])
            }
        }
        try expectUntouched()
        #expect(!FileManager.default.fileExists(atPath: temporary.path), "the download is removed")
    }

    @Test("a symbolic link to a directory is a directory: the link and the directory stay")
    func symlinkToDirectory() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let link = downloads.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: root)
        let temporary = try downloaded()
        do {
            _ = try DownloadPlacement.move(temporary, response: response) { _, _ in (link, [.removePreviousFile]) }
            Issue.record("the download replaced a link to a directory")
        } catch let error as DownloadPlacementError {
            #expect(error == .destinationIsDirectory(link))
            #expect(error.description.contains("is a directory"))
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == root.path)
        try expectUntouched()
    }

    @Test("an existing file is still replaced with .removePreviousFile")
    func fileStillReplaced() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let target = downloads.appendingPathComponent("keep.txt")
        let placed = try DownloadPlacement.move(try downloaded(), response: response) { _, _ in
            (target, [.removePreviousFile])
        }
        #expect(placed == target)
        #expect(try Data(contentsOf: target) == Data("new".utf8))
    }

    @Test("placing in-memory data obeys the same rule")
    func placeData() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(throws: DownloadPlacementError.destinationIsDirectory(downloads.appendingPathComponent(".."))) {
            try DownloadPlacement.place(Data("new".utf8), response: response) { _, _ in
                (downloads.appendingPathComponent(".."), [.removePreviousFile])
            }
        }
        try expectUntouched()
    }
}
