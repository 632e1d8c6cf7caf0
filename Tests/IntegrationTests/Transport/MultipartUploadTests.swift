import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Serialized: the transfers of one suite run one after another, so the suites together
// never load this 2-core machine with dozens of uploads at once (timing tests run beside).
@Suite("Multipart uploads arrive byte for byte", .serialized, .timeLimit(.minutes(20)))
struct MultipartUploadTests {
    let server: TestServer
    let scratch: ScratchDirectory

    init() async throws {
        server = try await SharedServer.get()
        scratch = try ScratchDirectory()
    }

    private func upload(
        _ provider: Provider<ServerAPI>, _ parts: [MultipartFormBodyPart], path: String = "multipart"
    ) async throws -> MultipartEcho {
        try await scratch.withTransfers {
            try await provider.request(ServerAPI(server, path, method: .post, task: .uploadMultipart(parts)))
                .filterSuccessfulStatusCodes().map(MultipartEcho.self)
        }
    }

    @Test(
        "several files and fields, from memory, disk and a stream, keep their bytes, names and types",
        arguments: TransportUnderTest.allCases)
    func severalFilesAndFields(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let photo = try await scratch.file("photo.jpg", size: 300_000, seed: 1)
        let inMemory = PseudoRandomBytes.data(count: 100_000, seed: 2)
        let streamed = PseudoRandomBytes.data(count: 50_001, seed: 3)
        let parts = [
            MultipartFormBodyPart(provider: .data(Data("Holiday".utf8)), name: "title"),
            MultipartFormBodyPart(provider: .file(photo), name: "photo", fileName: "photo.jpg", mimeType: "image/jpeg"),
            MultipartFormBodyPart(
                provider: .data(inMemory), name: "thumbnail", fileName: "thumb.png", mimeType: "image/png"),
            MultipartFormBodyPart(
                provider: .stream(InputStream(data: streamed), length: UInt64(streamed.count)), name: "log",
                fileName: "app.log", mimeType: "text/plain"),
            MultipartFormBodyPart(provider: .data(Data()), name: "empty"),
            MultipartFormBodyPart(provider: .data(Data("3".utf8)), name: "count"),
        ]

        let echo = try await upload(provider, parts)

        #expect(echo.parts.map(\MultipartEcho.Part.name) == ["title", "photo", "thumbnail", "log", "empty", "count"])
        #expect(echo.parts.map(\MultipartEcho.Part.filename) == [nil, "photo.jpg", "thumb.png", "app.log", nil, nil])
        #expect(
            echo.parts.map(\MultipartEcho.Part.contentType) == [nil, "image/jpeg", "image/png", "text/plain", nil, nil])
        #expect(echo.parts.map(\MultipartEcho.Part.length) == [7, 300_000, 100_000, 50_001, 0, 1])
        #expect(echo.parts[0].value == "Holiday")
        #expect(echo.parts[5].value == "3")
        #expect(echo.parts[1].sha256 == (try await SHA256.hex(fileAt: photo)))
        #expect(echo.parts[2].sha256 == (try await SHA256.hex(inMemory)))
        #expect(echo.parts[3].sha256 == (try await SHA256.hex(streamed)))
        #expect(echo.parts[4].sha256 == (try await SHA256.hex(Data())))
        #expect(try scratch.transferFiles().isEmpty)
    }

    @Test(
        "a body of 10 MiB or more goes through a temporary file, arrives intact, and the file is removed",
        arguments: TransportUnderTest.allCases)
    func largeBodyFromDisk(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let video = try await scratch.file("video.mp4", size: 11 * 1024 * 1024, seed: 4)
        let streamed = PseudoRandomBytes.data(count: 1_048_577, seed: 5)
        let parts = [
            MultipartFormBodyPart(provider: .data(Data("Ada".utf8)), name: "owner"),
            MultipartFormBodyPart(provider: .file(video), name: "video", fileName: "video.mp4", mimeType: "video/mp4"),
            MultipartFormBodyPart(
                provider: .stream(InputStream(data: streamed), length: UInt64(streamed.count)), name: "extra",
                fileName: "extra.bin"),
        ]
        let sawSpoolFile = SpoolWatch()
        let target = ServerAPI(server, "multipart", method: .post, task: .uploadMultipart(parts))

        let response = try await scratch.withTransfers {
            var last: Response?
            for try await step in provider.requestWithProgress(target) {
                if !step.completed, try scratch.transferFiles().contains(where: { $0.hasPrefix("courier-multipart-") })
                {
                    sawSpoolFile.mark()
                }
                last = step.response
            }
            return try #require(last)
        }

        let echo = try response.filterSuccessfulStatusCodes().map(MultipartEcho.self)
        #expect(sawSpoolFile.marked, "the body was uploaded from a temporary file")
        #expect(echo.parts.map(\MultipartEcho.Part.length) == [3, 11 * 1024 * 1024, 1_048_577])
        #expect(echo.parts[1].sha256 == (try await SHA256.hex(fileAt: video)))
        #expect(echo.parts[2].sha256 == (try await SHA256.hex(streamed)))
        #expect(try scratch.transferFiles().isEmpty, "the temporary body file is removed after the upload")
    }

    @Test(
        "uploadCompositeMultipart sends its URL parameters in the query and its parts in the body",
        arguments: TransportUnderTest.allCases)
    func compositeWithURLParameters(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let bytes = PseudoRandomBytes.data(count: 20_000, seed: 6)
        let parts = [
            MultipartFormBodyPart(
                provider: .data(bytes), name: "file", fileName: "a.bin", mimeType: "application/octet-stream")
        ]
        let echo = try await scratch.withTransfers {
            try await provider.request(
                ServerAPI(
                    server, "multipart", method: .post,
                    task: .uploadCompositeMultipart(
                        parts, urlParameters: ["album": "Summer 2024", "tags": ["a", "b"]]))
            ).filterSuccessfulStatusCodes().map(MultipartEcho.self)
        }
        #expect(echo.args["album"] == ["Summer 2024"])
        #expect(echo.args["tags[]"] == ["a", "b"])
        #expect(echo.parts.count == 1)
        #expect(echo.parts[0].sha256 == (try await SHA256.hex(bytes)))
    }

    @Test(
        "field and file names with quotes, backslashes, separators, UTF-8 and line breaks arrive as sent",
        arguments: TransportUnderTest.allCases)
    func specialCharacters(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let names: [(name: String, fileName: String?, expectedName: String, expectedFile: String?)] = [
            ("quote\"d", "my \"photo\".jpg", "quote\"d", "my \"photo\".jpg"),
            ("back\\slash", "C:\\Users\\ada\\file.txt", "back\\slash", "C:\\Users\\ada\\file.txt"),
            ("semi;colon=eq, comma", "a;b=c.txt", "semi;colon=eq, comma", "a;b=c.txt"),
            ("ünïcødé 名前 🚀", "résumé 履歴書.pdf", "ünïcødé 名前 🚀", "résumé 履歴書.pdf"),
            ("tab\there", nil, "tab\there", nil),
            ("line\r\nContent-Type: text/html", "x\r\ny.txt", "line%0D%0AContent-Type: text/html", "x%0D%0Ay.txt"),
            ("nul\u{0}byte", nil, "nul%00byte", nil),
        ]
        var parts: [MultipartFormBodyPart] = []
        for (index, entry) in names.enumerated() {
            parts.append(
                MultipartFormBodyPart(
                    provider: .data(Data("value \(index)".utf8)), name: entry.name, fileName: entry.fileName,
                    mimeType: entry.fileName == nil ? nil : "text/plain\r\nX-Injected: 1"))
        }

        let echo = try await upload(provider, parts)

        #expect(echo.parts.count == names.count, "no name ended a header or a part early")
        #expect(echo.parts.map(\MultipartEcho.Part.name) == names.map(\.expectedName))
        #expect(echo.parts.map(\MultipartEcho.Part.filename) == names.map(\.expectedFile))
        for (index, part) in echo.parts.enumerated() {
            #expect(part.length == "value \(index)".utf8.count)
            #expect(part.contentType == (names[index].fileName == nil ? nil : "text/plainX-Injected: 1"))
        }
    }
}

/// Remembers that something was seen, from any thread.
final class SpoolWatch: Sendable {
    private let seen = LockIsolated(false)

    func mark() { seen.setValue(true) }
    var marked: Bool { seen.value }
}
