import Courier
import CourierTesting
import Dispatch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The README's "Uploads and downloads" example, compiled and run (uploads against a
/// transport that reports progress, downloads from the sample data).
@Suite("README: uploads and downloads")
struct ReadmeTransferExampleTests {
    /// The README's own target, compiled from the docs sample.
    typealias Media = READMETransfers.Media

    @Test("upload with a progress stream, download with a progress block")
    func example() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-readme-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let photoURL = folder.appendingPathComponent("photo.jpg")
        try Data(repeating: 0xFF, count: 4096).write(to: photoURL)
        let destination = folder.appendingPathComponent("originals/42.jpg")
        let uploads = ClosureTransport { request in
            request.progress?(2048, 4300)
            request.progress?(4300, 4300)
            return Response(statusCode: 201, data: Data(), request: request.urlRequest)
        }

        // As in the README:
        let media = Provider<Media>(transport: uploads)
        var lines: [String] = []
        for try await step in media.requestWithProgress(.upload(photo: photoURL, caption: "Lisbon")) {
            if let response = step.response {
                lines.append("uploaded: \(response.statusCode)")
            } else {
                lines.append(
                    "\(Int(step.progress * 100)) % — \(step.completedBytes) of \(step.totalBytes ?? 0) bytes sent")
            }
        }
        #expect(lines == ["47 % — 2048 of 4300 bytes sent", "100 % — 4300 of 4300 bytes sent", "uploaded: 201"])

        // The README's download, on a queue of the test's own and from the sample data.
        let stubbed = Provider<Media>(
            endpointClosure: { target in
                Endpoint(
                    url: URL(target: target).absoluteString,
                    sampleResponseClosure: { .networkResponse(200, Data("original bytes".utf8)) },
                    method: target.method, task: target.task, httpHeaderFields: target.headers)
            },
            stubClosure: Provider.immediatelyStub, callbackQueue: DispatchQueue(label: "readme"))
        let progress = ProgressSteps()
        let saved: URL? = await withCheckedContinuation { continuation in
            stubbed.request(
                .original(id: "42", to: destination),
                progress: { step in
                    progress.append(step.progress)
                }
            ) { result in
                continuation.resume(returning: try? result.get().fileURL)
            }
        }
        #expect(saved == destination)
        #expect(try Data(contentsOf: destination) == Data("original bytes".utf8))
        #expect(progress.all == [1])
    }
}

/// Progress fractions received on a callback queue.
final class ProgressSteps: Sendable {
    private let steps = LockIsolated<[Double]>([])

    func append(_ step: Double) { steps.withValue { $0.append(step) } }
    var all: [Double] { steps.value }
}
