import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ScriptedTransport", .timeLimit(.minutes(20)))
struct ScriptedTransportTests {
    let transport = ScriptedTransport()
    var provider: Provider<KitAPI> { .scripted(transport) }

    @Test("queued replies answer matching requests in order, then always replies take over")
    func queueThenAlways() async throws {
        transport.enqueue(.status(500), .json(#"{"login":"ada"}"#), for: .get("/me"))
        transport.always(.status(304), for: .get("me"))

        let codes = [
            try await provider.request(.me).statusCode, try await provider.request(.me).statusCode,
            try await provider.request(.me).statusCode,
        ]

        #expect(codes == [500, 200, 304])
        #expect(transport.pendingReplyCount == 0)
    }

    @Test("routes match on method and on the path's end, ignoring the base path")
    func routeMatching() {
        var request = URLRequest(url: URL(string: "https://api.example.com/v2/me/repos?page=2")!)
        request.httpMethod = "GET"
        #expect(ScriptedTransport.Route.get("/me/repos").matches(request))
        #expect(ScriptedTransport.Route.get("repos").matches(request))
        #expect(ScriptedTransport.Route(path: "/v2/me/repos").matches(request))
        #expect(!ScriptedTransport.Route.post("/me/repos").matches(request))
        #expect(!ScriptedTransport.Route.get("/pos").matches(request))
        #expect(!ScriptedTransport.Route.get("/me").matches(request))
        #expect(ScriptedTransport.Route.any.matches(request))
        #expect(ScriptedTransport.Route.get("/me/repos").description == "GET /me/repos")
    }

    @Test("the handler answers what the script does not, and sees the request")
    func handler() async throws {
        let transport = ScriptedTransport { request in
            request.url?.query == "page=2" ? .json("[]") : nil
        }
        transport.enqueue(.json(#"[{"id":1}]"#), for: .get("/me/repos"))
        let provider = Provider<KitAPI>.scripted(transport)

        #expect(try await provider.request(.repos(page: 1)).mapString() == #"[{"id":1}]"#)
        #expect(try await provider.request(.repos(page: 2)).mapString() == "[]")
        await #expect(throws: CourierError.self) { try await provider.request(.repos(page: 3)) }
    }

    @Test("an unscripted request fails loudly, naming its method and URL and what was scripted")
    func unscripted() async throws {
        transport.enqueue(.status(200), for: .post("/login"))

        let error = await #expect(throws: CourierError.self) { try await provider.request(.repos(page: 7)) }

        guard case .underlying(let underlying as UnscriptedRequestError, nil) = error else {
            Issue.record("expected UnscriptedRequestError, got \(String(describing: error))")
            return
        }
        #expect(underlying.method == "GET")
        #expect(underlying.url?.absoluteString == "https://api.example.com/v2/me/repos?page=7")
        #expect(
            underlying.description
                == "ScriptedTransport has no reply for GET https://api.example.com/v2/me/repos?page=7 (scripted: POST /login (1 left))"
        )
        #expect(transport.requestCount == 1)
    }

    @Test("every request is recorded as sent, after the plugins, so a test can assert headers and counts")
    func recording() async throws {
        struct Stamp: PluginType {
            func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
                var request = request
                request.setValue("yes", forHTTPHeaderField: "X-Stamped")
                return request
            }
        }
        transport.always(.status(204), for: .any)
        let provider = Provider<KitAPI>.scripted(transport, plugins: [Stamp()])

        _ = try await provider.request(.me)
        _ = try await provider.request(.repos(page: 1))
        _ = try await provider.request(.me)

        #expect(transport.requestCount == 3)
        #expect(transport.requests(matching: .get("/me")).count == 2)
        #expect(transport.requests.allSatisfy { $0.value(forHTTPHeaderField: "X-Stamped") == "yes" })
        #expect(
            transport.requests.map { $0.value(forHTTPHeaderField: "Accept") }
                == Array(repeating: "application/json", count: 3))
        #expect(transport.lastRequest?.url?.path == "/v2/me")

        transport.reset()
        #expect(transport.requestCount == 0)
        await #expect(throws: CourierError.self) { try await provider.request(.me) }
    }

    @Test("a file upload's body is recorded; a download's reply lands at its destination")
    func files() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-kit-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let upload = folder.appendingPathComponent("in.txt")
        try Data("file contents".utf8).write(to: upload)
        transport.enqueue(.status(201), for: .post("/files"))
        transport.enqueue(.data(Data("PDF".utf8)), for: .get("/files/report"))

        _ = try await provider.request(.upload(upload))
        let destination = folder.appendingPathComponent("out/report.pdf")
        let download = try await provider.request(.download(destination))

        #expect(transport.requests.first?.httpBody == Data("file contents".utf8))
        #expect(download.fileURL == destination)
        #expect(try Data(contentsOf: destination) == Data("PDF".utf8))
    }

    @Test("failure replies fail the request as the network would")
    func failure() async throws {
        transport.enqueue(.failure(URLError(.timedOut)), for: .any)

        await #expect {
            try await provider.request(.me)
        } throws: { error in
            guard case .underlying(let underlying, nil) = error as? CourierError else { return false }
            return (underlying as? URLError)?.code == .timedOut
        }
    }

    @Test("a delayed reply is cancelled with its task")
    func delayedCancellation() async throws {
        // Longer than the suite's time limit: only the cancel can end it before that.
        transport.always(.delayed(seconds: 3_600, .status(200)), for: .any)
        let provider = self.provider

        let task = Task { try await provider.request(.me) }
        try await transport.waitForRequests(1)
        task.cancel()

        await #expect {
            try await task.value
        } throws: { error in
            (error as? CourierError)?.isCancelled == true
        }
    }

    @Test("waitForRequests returns once that many requests were sent, answered or not")
    func waitForRequests() async throws {
        transport.always(.status(204), for: .get("/me"))
        let provider = self.provider
        let tasks = (0..<3).map { _ in Task { try? await provider.request(.me) } }
        try await transport.waitForRequests(3)
        #expect(transport.requestCount >= 3)
        for task in tasks { _ = await task.value }
        // Unscripted requests count too.
        _ = try? await provider.request(.repos(page: 1))
        try await transport.waitForRequests(4)
        #expect(transport.requestCount == 4)
    }

    @Test("many concurrent requests each take exactly one queued reply")
    func concurrency() async throws {
        transport.enqueue(contentsOf: (0..<100).map { .text("\($0)") }, for: .get("/me"))
        let provider = self.provider

        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 {
                group.addTask { try await provider.request(.me).mapString() }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(Set(bodies) == Set((0..<100).map { "\($0)" }))
        #expect(transport.requestCount == 100)
        #expect(transport.pendingReplyCount == 0)
    }
}
