import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server that misbehaves on purpose (the `/hostile/…` routes): a request is never sent
/// twice behind the caller's back, a corrupt body is not mistaken for a lost connection,
/// credentials stay with their origin, and a response cannot fill the memory.
///
/// Each test uses a fresh transport, so its connections are its own, and a fresh key in the
/// route, so its counts are its own. The suite has a server of its own and runs one test at
/// a time: the huge bodies keep that server busy, and the timing of the dropped POSTs must
/// not depend on them.
@Suite("A hostile server", .serialized, .timeLimit(.minutes(3)))
struct HostileServerTests {
    let server: TestServer

    private static let ownServer = Task { try await TestServer.start() }

    init() async throws {
        server = try await Self.ownServer.value
    }

    // MARK: - A non-idempotent request is never sent twice

    /// The bodies a non-idempotent request can have, each with the method and task the test
    /// sends.
    enum PostBody: String, CaseIterable, Sendable {
        case noBody, file, json, form, multipart
    }

    @Test(
        "a POST whose kept-alive connection is dropped after its body arrived fails promptly as a lost connection and is never sent again",
        arguments: TransportUnderTest.allCases, PostBody.allCases)
    func postNotResent(_ kind: TransportUnderTest, body: PostBody) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let key = "post-\(body.rawValue)-\(UUID().uuidString)"
        let task: RequestTask
        switch body {
        case .noBody: task = .requestPlain
        case .file: task = .uploadFile(try await scratch.file("report.bin", size: 256 * 1024, seed: 3))
        case .json: task = .requestParameters(parameters: ["amount": 100], encoding: JSONEncoding.default)
        case .form: task = .requestParameters(parameters: ["amount": "100"], encoding: URLEncoding.httpBody)
        case .multipart:
            task = .uploadMultipart([MultipartFormBodyPart(provider: .data(Data("100".utf8)), name: "amount")])
        }

        let rounds = 5
        for _ in 0..<rounds {
            // The GET leaves a kept-alive connection that the POST reuses.
            #expect(try await provider.request(ServerAPI(server, "echo")).statusCode == 200)
            let clock = ContinuousClock()
            let start = clock.now
            let result = await outcome(
                provider, ServerAPI(server, "hostile/drop-after-body/\(key)", method: .post, task: task))
            let elapsed = clock.now - start

            #expect(urlErrorCode(result) == .networkConnectionLost, "\(result)")
            // Milliseconds on an idle machine; the server gives a stalled body 2 s, a hang 30 s.
            #expect(elapsed < .seconds(1.5))
        }
        #expect(try await hostileCounts(key).completeBodies == rounds)
    }

    @Test(
        "many POSTs dropped at once on one transport: each ends exactly once with an error, and each arrived once",
        arguments: TransportUnderTest.allCases)
    func concurrentDroppedPosts(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let key = "concurrent-\(UUID().uuidString)"
        let workers = 12
        let rounds = 4
        let codes = await withTaskGroup(of: [URLError.Code?].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var codes: [URLError.Code?] = []
                    for round in 0..<rounds {
                        _ = await outcome(provider, ServerAPI(server, "echo"))
                        let result = await outcome(
                            provider,
                            ServerAPI(
                                server, "hostile/drop-after-body/\(key)", method: .post,
                                task: .requestParameters(
                                    parameters: ["worker": worker, "round": round], encoding: JSONEncoding.default)))
                        codes.append(urlErrorCode(result))
                    }
                    return codes
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }

        #expect(codes.count == workers * rounds, "every request ended exactly once")
        // A reused connection: the transport refused libcurl's resend. A fresh one: libcurl
        // got nothing and does not resend.
        #expect(codes.allSatisfy { $0 == .networkConnectionLost || $0 == .badServerResponse }, "\(codes)")
        #expect(try await hostileCounts(key).completeBodies == workers * rounds)
    }

    @Test(
        "a RetryPolicy that allows it sends the dropped POST again, once per retry",
        arguments: TransportUnderTest.allCases)
    func retryPolicyMayResend(_ kind: TransportUnderTest) async throws {
        let provider = Provider<IdempotentPost>(
            transport: kind.make(timeout: 30),
            retryPolicy: RetryPolicy(maxRetries: 1, baseDelay: 0, sleep: { _ in }))
        let key = "retry-\(UUID().uuidString)"
        _ = await outcome(provider, IdempotentPost(base: server.baseURL, path: "echo"))
        let result = await outcome(
            provider, IdempotentPost(base: server.baseURL, path: "hostile/drop-after-body/\(key)"))

        #expect(urlErrorCode(result) != nil)
        // The first attempt and the one retry the caller allowed; never a transparent third.
        #expect(try await hostileCounts(key).completeBodies == 2)
    }

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
        let clock = ContinuousClock()
        let start = clock.now
        // 64 MiB at most one 64 KiB block per 5 ms: at least 5 s to send it all, and little
        // for libcurl to read ahead of the delegate.
        let result = await outcome(
            provider,
            ServerAPI(
                server, "hostile/huge/\(key)",
                task: query(["size": 64 << 20, "chunked": chunked ? 1 : 0, "block_delay_ms": 5])))

        #expect(urlErrorCode(result) == .dataLengthExceedsMaximum, "\(result)")
        // The bound is passed after a mebibyte, some 16 blocks.
        #expect(clock.now - start < .seconds(3))
        try await Task.sleep(nanoseconds: 300_000_000)
        // The server stopped when the client closed the connection, far short of the whole.
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

    // MARK: - Credentials stay with their origin

    @Test(
        "a redirect to another origin drops Authorization, Proxy-Authorization and Cookie; the same origin keeps them",
        arguments: TransportUnderTest.allCases)
    func redirectDropsCredentials(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        let headers = [
            "Authorization": "Bearer secret-token", "Proxy-Authorization": "Basic cHJveHk6cHc=",
            "Cookie": "session=secret-cookie", "X-Other": "kept",
        ]
        let crossHost = "http://localhost:\(server.port)/echo"
        let cross = try await provider.request(
            ServerAPI(
                server, "redirect",
                task: .requestParameters(parameters: ["to": crossHost], encoding: URLEncoding.queryString),
                headers: headers)
        ).echo()
        #expect(cross.header("Host")?.hasPrefix("localhost") == true)
        #expect(cross.header("Authorization") == nil)
        #expect(cross.header("Proxy-Authorization") == nil)
        #expect(cross.header("Cookie") == nil)
        #expect(cross.header("X-Other") == "kept")

        let same = try await provider.request(ServerAPI(server, "redirect-same/echo", headers: headers)).echo()
        #expect(same.header("Authorization") == "Bearer secret-token")
        #expect(same.header("Proxy-Authorization") == "Basic cHJveHk6cHc=")
        #expect(same.header("Cookie") == "session=secret-cookie")
    }

    @Test(
        "a redirect to a scheme other than http or https is not followed: the 3xx is the response",
        arguments: TransportUnderTest.allCases, ["ftp://127.0.0.1:1/x", "gopher://127.0.0.1:1/x"])
    func redirectToOtherScheme(_ kind: TransportUnderTest, location: String) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 10))
        let response = try await provider.request(
            ServerAPI(
                server, "redirect",
                task: .requestParameters(parameters: ["to": location], encoding: URLEncoding.queryString)))
        #expect(response.statusCode == 302)
        #expect(response.response?.value(forHTTPHeaderField: "Location") == location)
        #expect(!String(decoding: response.data, as: UTF8.self).contains("root:"))
    }

    @Test(
        "a 307 or 308 never delivers a request without its body: it is followed whole or comes back as the response",
        arguments: TransportUnderTest.allCases, [307, 308])
    func bodyPreservingRedirect(_ kind: TransportUnderTest, status: Int) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 10))
        let body = Data(#"{"amount":100}"#.utf8)
        let response = try await provider.request(
            ServerAPI(
                server, "redirect", method: .post,
                task: .requestCompositeData(bodyData: body, urlParameters: ["to": "/echo", "status": status]),
                headers: ["Content-Type": "application/json"]))

        if response.statusCode == status {
            #expect(response.response?.value(forHTTPHeaderField: "Location") == "/echo")
        } else {
            let echo = try response.echo()
            #expect(echo.method == "POST")
            #expect(echo.bodyLength == body.count, "the redirected POST lost its body")
        }
        // A request without a body is still followed.
        let plain = try await provider.request(
            ServerAPI(server, "redirect", task: query(["to": "/echo", "status": status])))
        #expect(plain.statusCode == 200)
    }

    // MARK: - Helpers

    struct HostileCounts: Decodable {
        let requests: Int
        let completeBodies: Int
        let bytesSent: Int

        enum CodingKeys: String, CodingKey {
            case requests
            case completeBodies = "complete_bodies"
            case bytesSent = "bytes_sent"
        }
    }

    func hostileCounts(_ key: String) async throws -> HostileCounts {
        try await Provider<ServerAPI>().request(ServerAPI(server, "hostile/count/\(key)")).map(HostileCounts.self)
    }
}

/// A POST that its author declares idempotent (it carries its own idempotency key), so
/// ``RetryPolicy`` may send it again.
struct IdempotentPost: TargetType, RetryableTarget {
    var base: URL
    var path: String
    var baseURL: URL { base }
    var method: HTTPMethod { .post }
    var task: RequestTask { .requestData(Data("{\"amount\":100}".utf8)) }
    var headers: [String: String]? { ["Content-Type": "application/json", "Idempotency-Key": "k-1"] }
    var isIdempotent: Bool { true }
}

/// How `target` ended: the response or the typed error, exactly once.
func outcome<Target: TargetType>(_ provider: Provider<Target>, _ target: Target) async -> Result<Response, CourierError>
{
    do {
        return .success(try await provider.request(target))
    } catch {
        return .failure(error)
    }
}

/// A task that sends `parameters` in the query string.
func query(_ parameters: [String: any Sendable]) -> RequestTask {
    .requestParameters(parameters: parameters, encoding: URLEncoding.queryString)
}

/// The `URLError` code a failed request carries, `nil` for a success or another error.
func urlErrorCode(_ result: Result<Response, CourierError>) -> URLError.Code? {
    guard case .failure(let error) = result else { return nil }
    return (error.underlyingError as? URLError)?.code
}
