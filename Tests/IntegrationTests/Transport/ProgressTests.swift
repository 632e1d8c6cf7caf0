import Courier
import CourierTestServer
import Dispatch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Serialized: the transfers of one suite run one after another, so the suites together
// never load this 2-core machine with dozens of uploads at once (timing tests run beside).
@Suite("Progress of uploads and downloads", .serialized, .timeLimit(.minutes(20)))
struct ProgressTests {
    let server: TestServer
    let scratch: ScratchDirectory

    init() async throws {
        server = try await SharedServer.get()
        scratch = try ScratchDirectory()
    }

    private func steps(
        _ provider: Provider<ServerAPI>, of target: ServerAPI
    ) async throws -> [ProgressResponse] {
        try await scratch.withTransfers {
            var steps: [ProgressResponse] = []
            for try await step in provider.requestWithProgress(target) {
                steps.append(step)
            }
            return steps
        }
    }

    @Test(
        "a multipart upload counts the bytes sent up to the body's size, then ends at 1 with the response",
        arguments: TransportUnderTest.allCases)
    func multipartUpload(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let bytes = PseudoRandomBytes.data(count: 2 * 1024 * 1024, seed: 8)
        let target = ServerAPI(
            server, "multipart", method: .post,
            task: .uploadMultipart([MultipartFormBodyPart(provider: .data(bytes), name: "f", fileName: "f.bin")]))

        let steps = try await steps(provider, of: target)

        let response = try #require(steps.last?.response)
        let echo = try response.map(MultipartEcho.self)
        let transfer = steps.dropLast()
        #expect(transfer.count >= 2, "several steps before the end")
        #expect(steps.isMonotonic)
        #expect(steps.endsCompleteAtOne)
        #expect(transfer.allSatisfy { $0.totalBytes == Int64(echo.length) }, "the total is the whole body")
        #expect(transfer.last?.completedBytes == Int64(echo.length), "every byte was reported sent")
        #expect(zip(transfer, transfer.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
        #expect(steps.last?.completedBytes == Int64(echo.length))
        #expect(echo.parts.first?.sha256 == (try await SHA256.hex(bytes)))
    }

    @Test("a file upload from disk reports the file's size as its total", arguments: TransportUnderTest.allCases)
    func fileUpload(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let size: Int64 = 2 * 1024 * 1024
        let file = try await scratch.file("upload.bin", size: Int(size), seed: 9)
        let steps = try await steps(provider, of: ServerAPI(server, "upload", method: .post, task: .uploadFile(file)))
        let transfer = steps.dropLast()
        #expect(steps.isMonotonic)
        #expect(steps.endsCompleteAtOne)
        #expect(transfer.allSatisfy { $0.totalBytes == size })
        #expect(transfer.last?.completedBytes == size)
        #expect(try steps.last?.response?.map(UploadDigest.self).length == Int(size))
    }

    @Test(
        "a slow download reports the bytes received against Content-Length, then ends at 1",
        arguments: TransportUnderTest.allCases)
    func download(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let destination = scratch.url.appendingPathComponent("slow.bin")
        let steps = try await steps(
            provider,
            of: ServerAPI(
                server, "slow-bytes/2000000",
                task: .downloadParameters(parameters: ["chunks": 8, "delay_ms": 20], encoding: URLEncoding.queryString)
                {
                    _, _ in (destination, [])
                }))

        let transfer = steps.dropLast()
        #expect(transfer.count >= 4, "the chunks arrive as several steps")
        #expect(steps.isMonotonic)
        #expect(steps.endsCompleteAtOne)
        #expect(transfer.allSatisfy { $0.totalBytes == 2_000_000 })
        #expect(transfer.last?.completedBytes == 2_000_000)
        #expect(transfer.contains { $0.progress > 0 && $0.progress < 1 })
        #expect(steps.last?.response?.fileURL == destination)
        #expect(try Data(contentsOf: destination) == .serverPattern(count: 2_000_000))
    }

    @Test(
        "Moya's progress block runs on the callback queue, in order, before the completion",
        arguments: TransportUnderTest.allCases)
    func completionProgressBlock(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let file = try await scratch.file("block.bin", size: 1024 * 1024, seed: 10)
        let queue = DispatchQueue(label: "courier.progress-test")
        let log = ProgressLog()
        let result: Result<Response, CourierError> = await withCheckedContinuation { continuation in
            provider.request(
                ServerAPI(server, "upload", method: .post, task: .uploadFile(file)), callbackQueue: queue,
                progress: { step in
                    dispatchPrecondition(condition: .onQueue(queue))
                    log.append(step)
                },
                completion: { result in
                    dispatchPrecondition(condition: .onQueue(queue))
                    continuation.resume(returning: result)
                })
        }
        let response = try result.get()
        let steps = log.all
        #expect(steps.isMonotonic)
        #expect(steps.endsCompleteAtOne, "the last step, with the response, came before the completion")
        #expect(steps.last?.response == response)
        #expect(steps.count >= 3)
    }

    @Test(
        "a request without a body to send reports what it receives and ends at 1",
        arguments: TransportUnderTest.allCases)
    func plainRequest(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        let steps = try await steps(provider, of: ServerAPI(server, "bytes/300000"))
        #expect(steps.isMonotonic)
        #expect(steps.endsCompleteAtOne)
        #expect(steps.last?.response?.data == .serverPattern(count: 300_000))
        #expect(steps.last?.completedBytes == 300_000)
        scratch.remove()
    }

    @Test(
        "a failed transfer ends the stream with the error, never with a completed step",
        arguments: TransportUnderTest.allCases)
    func failure(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        var target = ServerAPI(
            server, "upload", method: .post, task: .uploadFile(try await scratch.file("x", size: 10)))
        target.base = URL(string: "http://127.0.0.1:1")!
        var seen: [ProgressResponse] = []
        await #expect(throws: CourierError.self) {
            for try await step in provider.requestWithProgress(target) {
                seen.append(step)
            }
        }
        #expect(!seen.contains { $0.progress == 1 || $0.completed }, "nothing was sent to a closed port")
    }
}
