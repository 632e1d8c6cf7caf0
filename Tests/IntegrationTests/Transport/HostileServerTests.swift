import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server that misbehaves on purpose (the `/hostile/…` routes): a request is never sent
/// twice behind the caller's back (`+Resend`), a corrupt body is not mistaken for a lost
/// connection and a response cannot fill the memory (`+Bodies`), credentials stay with their
/// origin (`+Redirects`).
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
