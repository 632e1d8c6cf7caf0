import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server that misbehaves on purpose (the `/hostile/…` routes): a request is never sent
/// twice behind the caller's back (below), a corrupt body is not mistaken for a lost
/// connection and a response cannot fill the memory (`+Bodies`), credentials stay with their
/// origin (`+Redirects`).
///
/// Each test uses a fresh transport, so its connections are its own, and a fresh key in the
/// route, so its counts are its own. The suite has a server of its own and runs one test at
/// a time: the huge bodies keep that server busy, and the timing of the dropped POSTs must
/// not depend on them.
@Suite("A hostile server", .serialized, .timeLimit(.minutes(20)))
struct HostileServerTests {
    let server: TestServer

    private static let ownServer = Task { try await TestServer.start() }

    init() async throws {
        server = try await Self.ownServer.value
    }

    /// What `/hostile/count/<key>` reports.
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

    /// The counts the hostile routes kept for `key`.
    func hostileCounts(_ key: String) async throws -> HostileCounts {
        try await Provider<ServerAPI>(transport: TransportUnderTest.bookkeeping.make())
            .request(ServerAPI(server, "hostile/count/\(key)")).map(HostileCounts.self)
    }
}

/// A non-idempotent request is never sent twice behind the caller's back.
extension HostileServerTests {
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
            let result = await outcome(
                provider, ServerAPI(server, "hostile/drop-after-body/\(key)", method: .post, task: task))

            // The lost connection, not the 30 s time-out (`.timedOut`): the request did not
            // hang. That the body was not stalled is proved by the server's count of complete
            // bodies below.
            #expect(urlErrorCode(result) == .networkConnectionLost, "\(result)")
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
