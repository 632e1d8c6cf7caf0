import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Moya 15 code that must compile and behave as in Moya.
@Suite(
    "Moya 15 names: MultipartFormData, FormDataProvider, Completion, ProgressBlock, supportsMultipart",
    .timeLimit(.minutes(20)))
struct MoyaNamesTests {
    enum Upload: TargetType {
        case avatar([MultipartFormData])
        case composite([MultipartFormData])

        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "upload" }
        var method: HTTPMethod { .post }
        var task: RequestTask {
            switch self {
            case .avatar(let parts): .uploadMultipart(parts)
            case .composite(let parts): .uploadCompositeMultipart(parts, urlParameters: ["v": 2])
            }
        }
        var headers: [String: String]? { nil }
    }

    @Test("MultipartFormData with .data, .file and Moya's unlabeled .stream is sent as multipart")
    func multipart() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("moya-names-\(UUID()).txt")
        try Data("file-bytes".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let streamed = Data("stream-bytes".utf8)
        let parts = [
            MultipartFormData(
                provider: .data(Data("jpeg".utf8)), name: "avatar", fileName: "a.jpg", mimeType: "image/jpeg"),
            MultipartFormData(provider: .file(file), name: "doc", fileName: "d.txt"),
            MultipartFormData(provider: .stream(InputStream(data: streamed), UInt64(streamed.count)), name: "log"),
        ]
        let transport = ScriptedTransport()
        transport.always(.status(201), for: .any)
        let provider = Provider<Upload>.scripted(transport)

        _ = try await provider.request(.avatar(parts))
        _ = try await provider.request(.composite([parts[0]]))

        let body = String(decoding: try #require(transport.requests.first?.httpBody), as: UTF8.self)
        #expect(body.contains(#"name="avatar"; filename="a.jpg""#))
        #expect(body.contains("Content-Type: image/jpeg\r\n\r\njpeg\r\n"))
        #expect(body.contains("file-bytes") && body.contains("stream-bytes"))
        #expect(
            transport.requests.first?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("multipart/form-data")
                == true)
        #expect(transport.requests.last?.url?.query == "v=2")
    }

    @Test("MultipartFormData is Courier's MultipartFormBodyPart, and its provider type is FormDataProvider")
    func sameType() {
        let provider: MultipartFormData.FormDataProvider = .data(Data([1]))
        let part: MultipartFormBodyPart = MultipartFormData(provider: provider, name: "n")
        #expect(part == MultipartFormBodyPart(provider: .data(Data([1])), name: "n"))
        #expect(part != MultipartFormBodyPart(provider: .data(Data([2])), name: "n"))
        let stream = MultipartFormData.FormDataProvider.stream(InputStream(data: Data()), 0)
        #expect(stream == stream)
        #expect(stream != .stream(InputStream(data: Data()), length: 0))
    }

    @Test("supportsMultipart is true for POST, PUT, PATCH and CONNECT only")
    func supportsMultipart() {
        let multipart: [HTTPMethod] = [.post, .put, .patch, .connect]
        let others: [HTTPMethod] = [.get, .head, .delete, .options, .trace, .query, "PROPFIND", "post"]
        #expect(multipart.map(\.supportsMultipart) == [true, true, true, true])
        #expect(others.filter(\.supportsMultipart).isEmpty)
    }

    @Test("module-level Completion and ProgressBlock work with request(_:callbackQueue:progress:completion:)")
    func completionAliases() async throws {
        let steps = CallCounter()
        let done = Collected()
        let progress: ProgressBlock = { _ in _ = steps.increment() }
        let completion: Completion = { result in done.add(0, result) }
        let provider = Provider<TestAPI>(stubClosure: Provider.immediatelyStub)

        provider.request(.user(id: 1), callbackQueue: .global(), progress: progress, completion: completion)

        try await done.wait(forCount: 1)
        #expect(try done.result(0)?.get().statusCode == 200)
        try await steps.wait(forAtLeast: 1)
        let nested: Provider<TestAPI>.Completion = completion
        _ = nested
    }

    /// A plugin written for Moya 15: synchronous, non-throwing `prepare`.
    struct SyncPrepare: PluginType {
        func prepare(_ request: URLRequest, target: any TargetType) -> URLRequest {
            var request = request
            request.setValue("sync", forHTTPHeaderField: "X-Prepared")
            return request
        }
    }

    @Test("a plugin with Moya 15's synchronous prepare is the one that runs")
    func synchronousPrepare() async throws {
        let transport = ScriptedTransport()
        transport.always(.status(200), for: .any)
        _ = try await Provider<TestAPI>.scripted(transport, plugins: [SyncPrepare()]).request(.plain)
        #expect(transport.lastRequest?.value(forHTTPHeaderField: "X-Prepared") == "sync")
    }

    @Test("the stub and mapping helpers work as values and as calls")
    func helpers() async throws {
        let stub: Provider<TestAPI>.StubClosure = Provider<TestAPI>.immediatelyStub
        #expect(stub(.plain) == .immediate)
        #expect(Provider<TestAPI>.immediatelyStub(.plain) == .immediate)
        #expect(Provider<TestAPI>.neverStub(.plain) == .never)
        let never: Provider<TestAPI>.StubClosure = Provider<TestAPI>.neverStub
        #expect(never(.plain) == .never)
        let mapping = Provider<TestAPI>.defaultEndpointMapping
        #expect(mapping(.user(id: 1)) == Provider<TestAPI>.defaultEndpointMapping(for: .user(id: 1)))
        let request = try await Provider<TestAPI>.defaultRequestMapping(mapping(.user(id: 1)))
        #expect(request.url?.absoluteString == "https://api.example.com/v1/users/1")
    }
}
