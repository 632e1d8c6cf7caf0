import Courier
import CourierTestServer
import CourierTesting
import Dispatch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Serialized: the transfers of one suite run one after another, so the suites together
// never load this 2-core machine with dozens of uploads at once (timing tests run beside).
@Suite("Cancelled and failed transfers leave no files behind", .serialized, .timeLimit(.minutes(20)))
struct TransferCleanupTests {
    let server: TestServer
    let scratch: ScratchDirectory

    init() async throws {
        server = try await SharedServer.get()
        scratch = try ScratchDirectory()
    }

    /// Starts `target` with Moya's completion API, cancels it at the first progress step
    /// that `cancelWhen` accepts, and returns the result and the transfer files that
    /// existed at that moment.
    private func cancelMidway(
        _ provider: Provider<ServerAPI>,
        _ target: ServerAPI, diskThreshold: UInt64? = nil,
        when cancelWhen: @escaping @Sendable (ProgressResponse) -> Bool
    ) async -> (result: Result<Response, CourierError>, filesWhenCancelled: [String]) {
        let queue = DispatchQueue(label: "courier.cleanup-test")
        let filesWhenCancelled = FileList()
        let handle = CancellableBox()
        let result = await scratch.withTransfers(diskThreshold: diskThreshold) {
            await withCheckedContinuation { continuation in
                let request = provider.request(
                    target, callbackQueue: queue,
                    progress: { [scratch] step in
                        // The queue is serial: no other step runs meanwhile.
                        guard !filesWhenCancelled.isSet, cancelWhen(step) else { return }
                        filesWhenCancelled.set((try? scratch.transferFiles()) ?? [])
                        handle.cancel()
                    },
                    completion: { continuation.resume(returning: $0) })
                handle.set(request)
            }
        }
        return (result, filesWhenCancelled.value)
    }

    @Test(
        "cancelling mid-upload of a body written to disk removes the temporary file",
        arguments: TransportUnderTest.allCases)
    func cancelMidUpload(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let video = try await scratch.file("video.bin", size: 6 * 1024 * 1024, seed: 11)
        let target = ServerAPI(
            server, "slower-upload", method: .post,
            task: .uploadMultipart([MultipartFormBodyPart(provider: .file(video), name: "v", fileName: "v.bin")]))
        let (result, filesWhenCancelled) = await cancelMidway(provider, target, diskThreshold: 64 * 1024) { step in
            step.completedBytes > 0
        }

        #expect(
            filesWhenCancelled.contains { $0.hasPrefix("courier-multipart-") }, "cancelled while uploading from disk")
        guard case .failure(let error) = result else {
            Issue.record("the cancelled upload succeeded")
            return
        }
        #expect(error.isCancelled)
        #expect(try scratch.transferFiles().isEmpty)
        #expect(FileManager.default.fileExists(atPath: video.path), "the caller's file is never removed")
    }

    @Test(
        "raw file uploads cancelled mid-way, twenty in a row, each end with .cancelled",
        arguments: TransportUnderTest.allCases)
    func repeatedFileUploadCancellation(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        // Regression: swift-corelibs-foundation's uploadTask(fromFile:) crashes the process
        // when a file read completes after the transfer was cancelled.
        defer { scratch.remove() }
        let file = try await scratch.file("raw.bin", size: 4 * 1024 * 1024, seed: 19)
        let target = ServerAPI(server, "slower-upload", method: .post, task: .uploadFile(file))
        for _ in 0..<20 {
            let (result, _) = await cancelMidway(provider, target) { $0.completedBytes > 0 }
            #expect(result.error?.isCancelled == true)
        }
    }

    @Test("a body written to disk is removed when the upload fails", arguments: TransportUnderTest.allCases)
    func failedUpload(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let file = try await scratch.file("f.bin", size: 256 * 1024, seed: 13)
        var target = ServerAPI(
            server, "upload", method: .post,
            task: .uploadMultipart([MultipartFormBodyPart(provider: .file(file), name: "f", fileName: "f.bin")]))
        target.base = URL(string: "http://127.0.0.1:1")!
        await #expect(throws: CourierError.self) {
            try await scratch.withTransfers(diskThreshold: 64 * 1024) { try await provider.request(target) }
        }
        #expect(try scratch.transferFiles().isEmpty)
    }

    @Test(
        "cancelling mid-download leaves no file at the destination and no temporary file",
        arguments: TransportUnderTest.allCases)
    func cancelMidDownload(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let destination = scratch.url.appendingPathComponent("out/file.bin")
        let target = ServerAPI(
            server, "slow-bytes/4000000",
            task: .downloadParameters(parameters: ["chunks": 40, "delay_ms": 100], encoding: URLEncoding.queryString) {
                _, _ in (destination, [.createIntermediateDirectories])
            })
        let (result, filesWhenCancelled) = await cancelMidway(provider, target) { $0.completedBytes > 0 }

        #expect(filesWhenCancelled.contains { $0.hasPrefix("courier-download-") }, "cancelled while downloading")
        #expect(result.error?.isCancelled == true)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(try scratch.transferFiles().isEmpty)
    }

    @Test(
        "a download cut off by the server fails and leaves no file at the destination or in temp",
        arguments: TransportUnderTest.allCases)
    func truncatedDownload(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        defer { scratch.remove() }
        let destination = scratch.url.appendingPathComponent("truncated.bin")
        await #expect(throws: CourierError.self) {
            try await scratch.withTransfers {
                try await provider.request(
                    ServerAPI(server, "fault/truncated", task: .downloadDestination { _, _ in (destination, []) }))
            }
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(try scratch.transferFiles().isEmpty)
    }
}

/// The handle of a request started with a completion handler, set once it exists.
final class CancellableBox: Sendable {
    /// The request once it exists, and whether a cancel came before it did.
    private let state = LockIsolated<(request: (any Cancellable)?, cancelRequested: Bool)>((nil, false))

    func set(_ request: any Cancellable) {
        let cancelNow = state.withValue { state -> Bool in
            state.request = request
            return state.cancelRequested
        }
        if cancelNow { request.cancel() }
    }

    func cancel() {
        let request = state.withValue { state -> (any Cancellable)? in
            state.cancelRequested = true
            return state.request
        }
        request?.cancel()
    }
}

/// A list of file names recorded once, from any thread.
final class FileList: Sendable {
    private let names = LockIsolated<[String]?>(nil)

    func set(_ names: [String]) { self.names.setValue(names) }
    var isSet: Bool { names.value != nil }
    var value: [String] { names.value ?? [] }
}

extension Result {
    /// The failure, if this is one.
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
