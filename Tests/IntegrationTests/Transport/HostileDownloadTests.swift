import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads from a server whose `Content-Disposition` names `..`, nothing, or a path:
/// whatever the server sends, a download never deletes or replaces a folder, and the safe
/// destination keeps the file in its folder.
@Suite("Downloads named by a hostile server", .timeLimit(.minutes(20)))
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

/// Seeded fuzzing of `Content-Disposition` file names through the real server and transport.
@Suite("Fuzzing Content-Disposition through the transport", .timeLimit(.minutes(20)))
struct DispositionFuzzTests {
    static let fragments = [
        "..", ".", "/", "\\", "", "a", "report", ".pdf", "%2e%2e", "%2f", "../", "..\\", " ", "\t", "\u{7F}",
        "\u{202E}", "é", "📄", "~", "*", "\"", "'", ";", "filename=", "keep", "downloads", "sibling",
        String(repeating: "x", count: 200),
    ]

    @Test(
        "300 hostile names: each download lands in the folder or fails with an error; nothing outside changes",
        arguments: TransportUnderTest.allCases)
    func fuzz(_ kind: TransportUnderTest) async throws {
        let server = try await SharedServer.get()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let downloads = scratch.url.appendingPathComponent("downloads")
        let keep = downloads.appendingPathComponent("keep")
        try FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true)
        try Data("sibling".utf8).write(to: scratch.url.appendingPathComponent("sibling"))
        let provider = Provider<ServerAPI>(transport: kind.make())
        let destination = DownloadPlacement.suggestedDestination(
            in: downloads, options: [.removePreviousFile, .createIntermediateDirectories])
        // Seeded: the same inputs on every run.
        var random = SeededRandomNumberGenerator(seed: 0x5EED)
        func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        for index in 0..<300 {
            let name = (0..<next(6)).map { _ in Self.fragments[next(Self.fragments.count)] }.joined()
            let result = await outcome(
                provider,
                ServerAPI(
                    server, "hostile/disposition",
                    task: .downloadParameters(
                        parameters: ["filename": name], encoding: URLEncoding.queryString, destination: destination)))
            switch result {
            case .success(let response):
                let file = try #require(response.fileURL)
                #expect(
                    file.deletingLastPathComponent().standardizedFileURL.path == downloads.standardizedFileURL.path,
                    "input \(index) \(name.debugDescription)")
            case .failure(let error):
                // Only the folder `keep` can be named: it is a directory and stays one.
                #expect(
                    error.underlyingError is DownloadPlacementError, "input \(index) \(name.debugDescription): \(error)"
                )
            }
        }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: keep.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(
            FileManager.default.contents(atPath: scratch.url.appendingPathComponent("sibling").path)
                == Data("sibling".utf8))
        let outside = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(outside == ["downloads", "sibling", "transfers"])
    }
}
