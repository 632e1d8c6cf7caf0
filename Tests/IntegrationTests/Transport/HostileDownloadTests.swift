import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads from a server whose `Content-Disposition` names `..`, nothing, or a path:
/// whatever the server sends, a download never deletes or replaces a folder, and the safe
/// destination keeps the file in its folder.
@Suite("Downloads named by a hostile server", .timeLimit(.minutes(2)))
struct HostileDownloadTests {
    let server: TestServer
    let scratch: ScratchDirectory
    let downloads: URL

    init() async throws {
        server = try await SharedServer.get()
        scratch = try ScratchDirectory()
        downloads = scratch.url.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        try Data("earlier download".utf8).write(to: downloads.appendingPathComponent("earlier.pdf"))
    }

    func disposition(_ filename: String, destination: @escaping DownloadDestination) -> ServerAPI {
        ServerAPI(
            server, "hostile/disposition",
            task: .downloadParameters(
                parameters: ["filename": filename], encoding: URLEncoding.queryString, destination: destination))
    }

    func expectDownloadsIntact() {
        #expect(
            FileManager.default.contents(atPath: downloads.appendingPathComponent("earlier.pdf").path)
                == Data("earlier download".utf8))
    }

    @Test(
        "the unsafe appendingPathComponent(suggestedFilename) pattern with .removePreviousFile fails with a typed error and deletes nothing",
        arguments: TransportUnderTest.allCases, ["..", ""])
    func unsafePatternIsRefused(_ kind: TransportUnderTest, filename: String) async throws {
        defer { scratch.remove() }
        let downloads = self.downloads
        let provider = Provider<ServerAPI>(transport: kind.make())
        let result = await outcome(
            provider,
            disposition(filename) { _, response in
                (downloads.appendingPathComponent(response.suggestedFilename ?? "x"), [.removePreviousFile])
            })

        guard case .failure(let error) = result else {
            Issue.record("the download replaced a directory: \(result)")
            return
        }
        #expect(error.underlyingError is DownloadPlacementError, "\(error)")
        expectDownloadsIntact()
        #expect(FileManager.default.fileExists(atPath: scratch.url.path))
    }

    @Test(
        "suggestedDestination puts the file in the folder under a safe name",
        arguments: TransportUnderTest.allCases,
        [
            ("..", "download"), ("", "download"), ("../../escape.txt", "escape.txt"), (".hidden", "hidden"),
            ("q3 report.pdf", "q3 report.pdf"),
        ])
    func safeDestination(_ kind: TransportUnderTest, names: (sent: String, placed: String)) async throws {
        defer { scratch.remove() }
        let provider = Provider<ServerAPI>(transport: kind.make())
        let response = try await provider.request(
            disposition(names.sent, destination: DownloadPlacement.suggestedDestination(in: downloads)))

        let file = try #require(response.fileURL)
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == downloads.standardizedFileURL.path)
        // corelibs turns a `/` in the name into `_`; Apple's Foundation keeps the last part.
        #expect(file.lastPathComponent == names.placed || file.lastPathComponent.hasSuffix("escape.txt"))
        #expect(FileManager.default.contents(atPath: file.path) == Data("hostile download\n".utf8))
        expectDownloadsIntact()
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("escape.txt").path))
    }
}
