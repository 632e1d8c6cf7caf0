import Courier
import CourierTesting
import Dispatch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Stubbing", .timeLimit(.minutes(20)))
struct StubbingTests {
    @Test("immediatelyStub answers with the target's sample data and a 200")
    func immediate() async throws {
        let provider = Provider<TestAPI>(stubClosure: Provider.immediatelyStub)
        let response = try await provider.request(.user(id: 3))
        #expect(response.statusCode == 200)
        #expect(try response.map(User.self) == User(id: 3, name: "Ada"))
        #expect(response.request?.url?.absoluteString == "https://api.example.com/v1/users/3")
        #expect(response.response?.statusCode == 200)
    }

    @Test("delayedStub answers after the delay")
    func delayed() async throws {
        let provider = Provider<TestAPI>(stubClosure: Provider.delayedStub(0.2))
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await provider.request(.plain)
        let elapsed = clock.now - start
        #expect(response.statusCode == 200)
        #expect(elapsed >= .milliseconds(190))
    }

    @Test("a delayed stub is cancelled promptly with its task")
    func delayedCancellation() async throws {
        let waiting = CallCounter()
        // The stub waits an hour, longer than the suite's time limit: only the cancel can end
        // the request before that. `willSend` says the request has reached the stub's wait.
        let provider = Provider<TestAPI>(
            stubClosure: Provider.delayedStub(3_600), plugins: [WillSendSignal(counter: waiting)])
        let task = Task { try await provider.request(.plain) }
        try await waiting.wait(forAtLeast: 1)
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("the cancelled request succeeded")
            return
        }
        #expect((error as? CourierError)?.isCancelled == true)
    }

    @Test("networkError stubs fail with the error, wrapped as underlying")
    func networkError() async {
        let provider = Provider<TestAPI>(
            endpointClosure: { target in
                Endpoint(
                    url: URL(target: target).absoluteString,
                    sampleResponseClosure: { .networkError(URLError(.notConnectedToInternet)) },
                    method: target.method, task: target.task, httpHeaderFields: target.headers)
            },
            stubClosure: Provider.immediatelyStub)
        await #expect {
            try await provider.request(.plain)
        } throws: { error in
            guard case .underlying(let underlying, nil) = error as? CourierError else { return false }
            return (underlying as? URLError)?.code == .notConnectedToInternet
        }
    }

    @Test("a custom sampleResponseClosure sets status, headers and body, and validation applies")
    func customSampleResponse() async throws {
        let provider = Provider<TestAPI>(
            endpointClosure: { target in
                Endpoint(
                    url: URL(target: target).absoluteString,
                    sampleResponseClosure: {
                        .response(
                            HTTPURLResponse(
                                url: URL(string: "https://api.example.com")!, statusCode: 503,
                                httpVersion: nil, headerFields: ["Retry-After": "3"])!,
                            Data("busy".utf8))
                    },
                    method: target.method, task: target.task, httpHeaderFields: target.headers)
            },
            stubClosure: Provider.immediatelyStub)
        let response = try await provider.request(.plain)
        #expect(response.statusCode == 503)
        #expect(response.response?.value(forHTTPHeaderField: "Retry-After") == "3")
        #expect(try response.mapString() == "busy")

        await #expect {
            try await provider.request(.validated)
        } throws: { error in
            guard case .statusCode(let response) = error as? CourierError else { return false }
            return response.statusCode == 503
        }
    }

    @Test("a stubbed download writes the sample data to its destination")
    func stubbedDownload() async throws {
        struct Download: TargetType {
            let destination: URL
            var baseURL: URL { URL(string: "https://files.example.com")! }
            var path: String { "report.pdf" }
            var method: HTTPMethod { .get }
            var task: RequestTask {
                let destination = self.destination
                return .downloadDestination { _, _ in (destination, [.createIntermediateDirectories]) }
            }
            var headers: [String: String]? { nil }
            var sampleData: Data { Data("PDF".utf8) }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("nested/report.pdf")
        let provider = Provider<Download>(stubClosure: Provider.immediatelyStub)
        let response = try await provider.request(Download(destination: destination))
        #expect(response.fileURL == destination)
        #expect(response.data.isEmpty)
        #expect(try Data(contentsOf: destination) == Data("PDF".utf8))
    }
}
