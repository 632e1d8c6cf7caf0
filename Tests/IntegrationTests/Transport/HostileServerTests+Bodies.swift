import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A body that cannot be decoded is not a lost connection, and in-memory bodies are bounded.
extension HostileServerTests {
    // MARK: - A body that cannot be decoded is not a lost connection

    @Test(
        "a corrupt gzip or deflate body fails as cannotDecodeContentData and is not retried",
        arguments: TransportUnderTest.allCases, ["gzip-corrupt", "deflate-corrupt"])
    func corruptContentCoding(_ kind: TransportUnderTest, route: String) async throws {
        let provider = Provider<ServerAPI>(
            transport: kind.make(timeout: 30), retryPolicy: RetryPolicy(maxRetries: 2, baseDelay: 0, sleep: { _ in }))
        let key = "\(route)-\(UUID().uuidString)"
        let result = await outcome(provider, ServerAPI(server, "hostile/\(route)/\(key)"))

        #expect(urlErrorCode(result) == .cannotDecodeContentData, "\(result)")
        #expect(try await hostileCounts(key).requests == 1)
    }

    // MARK: - In-memory bodies are bounded

    @Test(
        "a gzip bomb is cut off at the bound, counted after decoding, with the failing URL",
        arguments: TransportUnderTest.allCases)
    func gzipBomb(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(maximumResponseBodySize: 256 * 1024))
        // 4 MiB of zeros in about 4 KiB of gzip: far below the bound on the wire, 16 times
        // over it once inflated. (Small, so that this test does not swell the memory of the
        // test process, which other suites measure.)
        let target = ServerAPI(server, "hostile/gzip-bomb", task: query(["size": 4 * 1024 * 1024]))
        let result = await outcome(provider, target)

        #expect(urlErrorCode(result) == .dataLengthExceedsMaximum, "\(result)")
        guard case .failure(let error) = result, let urlError = error.underlyingError as? URLError else { return }
        #expect(urlError.failingURL?.path == "/hostile/gzip-bomb")
        #expect(urlError.localizedDescription.contains("262144 bytes"))
    }

    @Test(
        "a body is cancelled soon after it passes the bound, long before the server is done, with or without a length",
        arguments: TransportUnderTest.allCases, [true, false])
    func hugeBody(_ kind: TransportUnderTest, chunked: Bool) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(maximumResponseBodySize: 1024 * 1024))
        let key = "huge-\(chunked)-\(UUID().uuidString)"
        // 64 MiB at most one 64 KiB block per 60 ms: at least 60 s to send it all, and little
        // for libcurl to read ahead of the delegate.
        let result = await outcome(
            provider,
            ServerAPI(
                server, "hostile/huge/\(key)",
                task: query(["size": 64 << 20, "chunked": chunked ? 1 : 0, "block_delay_ms": 60])))

        #expect(urlErrorCode(result) == .dataLengthExceedsMaximum, "\(result)")
        // The bound is passed after a mebibyte, some 16 blocks (one second). The server writes
        // no faster than the client reads (the socket's buffers fill), so when the error has
        // come back it has sent little more than the client read: far short of the whole,
        // however loaded the machine. A transfer read to the end would show all 64 MiB.
        #expect(try await hostileCounts(key).bytesSent < 32 << 20)
    }

    @Test(
        "a body of exactly the bound is kept; one byte more fails; a HEAD is not judged by its length",
        arguments: TransportUnderTest.allCases)
    func exactBound(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(maximumResponseBodySize: 65_536))
        let fits = try await provider.request(ServerAPI(server, "bytes/65536"))
        #expect(fits.data.count == 65_536)
        let tooBig = await outcome(provider, ServerAPI(server, "bytes/65537"))
        #expect(urlErrorCode(tooBig) == .dataLengthExceedsMaximum, "\(tooBig)")
        // A HEAD announces the size of a body it does not send.
        let head = try await provider.request(ServerAPI(server, "bytes/\(1 << 30)", method: .head))
        #expect(head.statusCode == 200)
        #expect(head.response?.expectedContentLength == 1 << 30)
    }

    @Test("a download to a file is not limited by the in-memory bound", arguments: TransportUnderTest.allCases)
    func downloadNotBounded(_ kind: TransportUnderTest) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let provider = Provider<ServerAPI>(transport: kind.make(maximumResponseBodySize: 1024))
        let file = scratch.url.appendingPathComponent("big.bin")
        let response = try await provider.request(
            ServerAPI(
                server, "hostile/huge/dl-\(UUID().uuidString)",
                task: .downloadParameters(
                    parameters: ["size": 2 * 1024 * 1024, "chunked": 1], encoding: URLEncoding.queryString,
                    destination: { _, _ in (file, []) })))

        #expect(response.fileURL == file)
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
        #expect(size?.intValue == 2 * 1024 * 1024)
    }
}

/// A header a transport cannot read is a clear, typed error.
extension HostileServerTests {
    @Test(
        "a header in ISO-8859-1 is read, or fails as cannotParseResponse naming the request: never a vague unknown error",
        arguments: TransportUnderTest.allCases)
    func latin1Header(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(
            transport: kind.make(timeout: 30), retryPolicy: RetryPolicy(maxRetries: 2, baseDelay: 0, sleep: { _ in }))
        let key = "latin1-\(UUID().uuidString)"
        let result = await outcome(provider, ServerAPI(server, "hostile/latin1-header/\(key)"))

        switch result {
        case .success(let response):
            #expect(response.statusCode == 200)
            #expect(response.data == Data("ok".utf8))
            #expect(
                response.response?.value(forHTTPHeaderField: "Content-Disposition")?.hasPrefix("attachment") == true)
        case .failure(let error):
            let urlError = error.underlyingError as? URLError
            #expect(urlError?.code == .cannotParseResponse, "\(error)")
            #expect(urlError?.failingURL?.path == "/hostile/latin1-header/\(key)")
            #expect(error.localizedDescription.contains("/hostile/latin1-header/"), "\(error.localizedDescription)")
        }
        // Not a failure a retry could mend.
        #expect(try await hostileCounts(key).requests == 1)
    }
}
