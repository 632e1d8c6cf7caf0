import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Provider: transfers through the transport")
struct ProviderTransferTests {
    struct Upload: TargetType {
        var task: RequestTask
        var baseURL: URL { URL(string: "https://example.com")! }
        var path: String { "upload" }
        var method: HTTPMethod { .post }
        var headers: [String: String]? { nil }
    }

    /// A plugin whose `prepare` sends a request of its own through `inner`.
    struct NestedRequestPlugin: PluginType {
        let inner: Provider<Upload>

        func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
            _ = try await inner.request(Upload(task: .requestPlain))
            return request
        }
    }

    @Test("the transport's byte counts become the progress stream, which ends with the response")
    func progressFromTransport() async throws {
        let transport = ClosureTransport { request in
            for sent in stride(from: 0, through: 1000, by: 250) { request.progress?(Int64(sent), 1000) }
            return Response(statusCode: 200, data: Data("done".utf8), request: request.urlRequest)
        }
        let provider = Provider<Upload>(transport: transport)
        var steps: [ProgressResponse] = []
        for try await step in provider.requestWithProgress(Upload(task: .uploadMultipart([]))) {
            steps.append(step)
        }
        #expect(steps.map(\.completedBytes) == [0, 250, 500, 750, 1000, 1000])
        #expect(steps.map(\.progress) == [0, 0.25, 0.5, 0.75, 1, 1])
        #expect(steps.map(\.completed) == [false, false, false, false, false, true])
        #expect(steps.last?.progress == 1)
        #expect(steps.last?.response?.data == Data("done".utf8))
    }

    @Test("a request made inside a plugin does not report into the outer request's progress")
    func nestedRequestsDoNotLeak() async throws {
        let inner = Provider<Upload>(
            transport: ClosureTransport { request in
                request.progress?(999, 1000)  // would push the outer fraction to 0.999
                return Response(statusCode: 200, data: Data())
            })
        let outer = Provider<Upload>(
            transport: ClosureTransport { request in
                request.progress?(100, 1000)
                return Response(statusCode: 200, data: Data())
            },
            plugins: [NestedRequestPlugin(inner: inner)])
        var steps: [ProgressResponse] = []
        for try await step in outer.requestWithProgress(Upload(task: .uploadMultipart([]))) {
            steps.append(step)
        }
        #expect(steps.map(\.progress) == [0.1, 1])
    }

    @Test("multipart bodies reach the transport as uploads: small from memory, large from a file removed afterwards")
    func bodiesReachTransport() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-provider-test-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seen = BodyLog()
        let provider = Provider<Upload>(
            transport: ClosureTransport { request in
                seen.append(request.body)
                if case .file(let url) = request.body, !FileManager.default.fileExists(atPath: url.path) {
                    Issue.record("the body file must exist while the transport sends it")
                }
                throw URLError(.networkConnectionLost)
            })
        let small = Upload(task: .uploadMultipart([MultipartFormBodyPart(provider: .data(Data("x".utf8)), name: "x")]))
        let large = Upload(
            task: .uploadMultipart([MultipartFormBodyPart(provider: .data(Data(count: 11 << 20)), name: "x")]))
        try await TransferDirectory.$override.withValue(directory) { () async throws in
            await #expect(throws: CourierError.self) { try await provider.request(small) }
            await #expect(throws: CourierError.self) { try await provider.request(large) }
        }
        let bodies = seen.all
        #expect(bodies.count == 2)
        if case .data = bodies.first {} else { Issue.record("a small body is uploaded from memory") }
        if case .file = bodies.last {} else { Issue.record("a large body is uploaded from a file") }
        #expect(bodies.allSatisfy { $0.isUpload })
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}

/// The bodies a transport received.
final class BodyLog: Sendable {
    private let bodies = LockIsolated<[TransportRequest.Body]>([])

    func append(_ body: TransportRequest.Body) { bodies.withValue { $0.append(body) } }
    var all: [TransportRequest.Body] { bodies.value }
}
