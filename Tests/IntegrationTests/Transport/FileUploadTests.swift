import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Serialized: the transfers of one suite run one after another, so the suites together
// never load this 2-core machine with dozens of uploads at once (timing tests run beside).
@Suite("uploadFile streams a file byte for byte", .serialized, .timeLimit(.minutes(20)))
struct FileUploadTests {
    let server: TestServer
    let scratch: ScratchDirectory

    init() async throws {
        server = try await SharedServer.get()
        scratch = try ScratchDirectory()
    }

    @Test(
        "a raw file upload arrives intact, with POST and PUT",
        arguments: TransportUnderTest.allCases, [(HTTPMethod.post, 5 * 1024 * 1024 + 3), (.put, 300_001)])
    func rawUpload(_ kind: TransportUnderTest, upload: (method: HTTPMethod, size: Int)) async throws {
        let (method, size) = upload
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let file = try await scratch.file("archive.zip", size: size, seed: 7)
        let digest = try await provider.request(
            ServerAPI(
                server, "upload", method: method, task: .uploadFile(file), headers: ["Content-Type": "application/zip"])
        ).filterSuccessfulStatusCodes().map(UploadDigest.self)
        #expect(digest.length == size)
        #expect(digest.sha256 == (try await SHA256.hex(fileAt: file)))
        #expect(digest.contentType == "application/zip")
        #expect(FileManager.default.fileExists(atPath: file.path), "the caller's file is never removed")
    }

    @Test("an empty file uploads as an empty body", arguments: TransportUnderTest.allCases)
    func emptyFile(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let file = try await scratch.file("empty", size: 0)
        let digest = try await provider.request(ServerAPI(server, "upload", method: .post, task: .uploadFile(file)))
            .map(UploadDigest.self)
        #expect(digest.length == 0)
        #expect(digest.sha256 == (try await SHA256.hex(Data())))
        #expect(digest.contentType == "application/octet-stream", "raw bytes unless the target says otherwise")
    }

    @Test(
        "a missing file or a directory fails at once with a typed error, and nothing is sent",
        arguments: TransportUnderTest.allCases)
    func unreadableFile(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let server = try await TestServer.start()  // its own, so its counters are this test's
        let before = try await server.counters().requestsTotal
        for url in [scratch.url.appendingPathComponent("missing.bin"), scratch.url] {
            // The file's own error, not a time-out: it failed before anything was sent (the
            // counters below prove nothing reached the server).
            await #expect {
                try await provider.request(ServerAPI(server, "upload", method: .post, task: .uploadFile(url)))
            } throws: { error in
                guard case .underlying(let underlying, nil) = error as? CourierError,
                    case .unreadableFile(let reported) = underlying as? MultipartEncodingFailure
                else { return false }
                return reported == url
            }
        }
        #expect(try await server.counters().requestsTotal == before)
    }
}
