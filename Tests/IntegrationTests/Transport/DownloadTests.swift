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
@Suite("Downloads land at their destination", .serialized, .timeLimit(.minutes(20)))
struct DownloadTests {
    let server: TestServer
    let scratch: ScratchDirectory

    init() async throws {
        server = try await SharedServer.get()
        scratch = try ScratchDirectory()
    }

    private func download(
        _ provider: Provider<ServerAPI>,
        _ path: String, to destination: URL, options: DownloadOptions
    ) async throws -> Response {
        try await scratch.withTransfers {
            try await provider.request(
                ServerAPI(server, path, task: .downloadDestination { _, _ in (destination, options) }))
        }
    }

    @Test(
        "a download of several MiB is byte for byte the server's content, with empty data",
        arguments: TransportUnderTest.allCases)
    func severalMiB(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let size = 6 * 1024 * 1024 + 5
        let destination = scratch.url.appendingPathComponent("deep/down/file.bin")
        let response = try await download(
            provider, "bytes/\(size)", to: destination, options: [.createIntermediateDirectories])
        #expect(response.statusCode == 200)
        #expect(response.data.isEmpty)
        #expect(response.fileURL == destination)
        #expect(try await SHA256.hex(fileAt: destination) == SHA256.hex(.serverPattern(count: size)))
        #expect(try scratch.transferFiles().isEmpty)
    }

    @Test(
        "the destination closure gets the finished temporary file and the response",
        arguments: TransportUnderTest.allCases)
    func destinationClosureArguments(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let seen = ClosureArguments()
        let destination = scratch.url.appendingPathComponent("named.bin")
        let response = try await scratch.withTransfers {
            try await provider.request(
                ServerAPI(
                    server, "bytes/1000",
                    task: .downloadDestination { temporaryURL, response in
                        seen.record(temporaryURL: temporaryURL, response: response)
                        return (destination, [])
                    }))
        }
        let (temporaryURL, httpResponse, size) = try #require(seen.value)
        #expect(
            temporaryURL.deletingLastPathComponent().standardizedFileURL.path
                == scratch.transfers.standardizedFileURL.path)
        #expect(temporaryURL.lastPathComponent.hasPrefix("courier-download-"))
        #expect(size == 1000, "the temporary file is complete when the closure runs")
        #expect(httpResponse.statusCode == 200)
        #expect(httpResponse.value(forHTTPHeaderField: "Content-Length") == "1000")
        #expect(response.fileURL == destination)
        #expect(!FileManager.default.fileExists(atPath: temporaryURL.path))
    }

    @Test(
        "without createIntermediateDirectories a missing folder fails the download and leaves no file",
        arguments: TransportUnderTest.allCases)
    func missingFolder(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let destination = scratch.url.appendingPathComponent("absent/file.bin")
        await #expect(throws: CourierError.self) {
            try await download(provider, "bytes/2000", to: destination, options: [])
        }
        #expect(!FileManager.default.fileExists(atPath: destination.deletingLastPathComponent().path))
        #expect(try scratch.transferFiles().isEmpty)
    }

    @Test(
        "an existing file is kept unless removePreviousFile says to replace it", arguments: TransportUnderTest.allCases)
    func existingFile(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let destination = scratch.url.appendingPathComponent("existing.bin")
        try Data("old".utf8).write(to: destination)

        await #expect(throws: CourierError.self) {
            try await download(provider, "bytes/3000", to: destination, options: [])
        }
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(try scratch.transferFiles().isEmpty)

        let response = try await download(provider, "bytes/3000", to: destination, options: [.removePreviousFile])
        #expect(response.fileURL == destination)
        #expect(try Data(contentsOf: destination) == .serverPattern(count: 3000))
        #expect(try scratch.transferFiles().isEmpty)
    }

    @Test(
        "an error status never touches the destination: its body comes back as data",
        arguments: TransportUnderTest.allCases)
    func errorStatus(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let destination = scratch.url.appendingPathComponent("page.bin")
        try Data("good".utf8).write(to: destination)
        let response = try await download(provider, "status/404", to: destination, options: [.removePreviousFile])
        #expect(response.statusCode == 404)
        #expect(response.fileURL == nil)
        #expect(try response.mapJSON() as? [String: Int] == ["status": 404])
        #expect(try Data(contentsOf: destination) == Data("good".utf8))
        #expect(try scratch.transferFiles().isEmpty)
    }

    @Test(
        "downloadParameters encodes its parameters, in the query or in a POST body",
        arguments: TransportUnderTest.allCases)
    func downloadParameters(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let destination = scratch.url.appendingPathComponent("echo.json")
        let response = try await scratch.withTransfers {
            try await provider.request(
                ServerAPI(
                    server, "echo", method: .post,
                    task: .downloadParameters(parameters: ["q": "a b", "n": 2], encoding: URLEncoding.httpBody) {
                        _, _ in (destination, [.removePreviousFile])
                    }))
        }
        let echo = try JSONDecoder().decode(Echo.self, from: Data(contentsOf: try #require(response.fileURL)))
        #expect(echo.method == "POST")
        #expect(echo.form?["q"] == ["a b"])
        #expect(echo.form?["n"] == ["2"])
    }
}

/// What a destination closure was called with, recorded from the transport's thread.
final class ClosureArguments: Sendable {
    private let stored = LockIsolated<(URL, HTTPURLResponse, Int)?>(nil)

    func record(temporaryURL: URL, response: HTTPURLResponse) {
        let size = (try? FileManager.default.attributesOfItem(atPath: temporaryURL.path)[.size] as? Int) ?? -1
        stored.setValue((temporaryURL, response, size))
    }

    var value: (URL, HTTPURLResponse, Int)? { stored.value }
}
