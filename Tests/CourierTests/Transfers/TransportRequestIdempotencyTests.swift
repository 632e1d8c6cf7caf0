import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("TransportRequest.isIdempotent")
struct TransportRequestIdempotencyTests {
    static func request(_ method: String?) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://example.com/x")!)
        request.httpMethod = method
        return request
    }

    @Test(
        "derived from the method when not given",
        arguments: [
            ("GET", true), ("HEAD", true), ("PUT", true), ("DELETE", true), ("OPTIONS", true), ("TRACE", true),
            ("POST", false), ("PATCH", false), ("CONNECT", false), ("PROPFIND", false),
        ])
    func derived(method: String, idempotent: Bool) {
        #expect(TransportRequest(urlRequest: Self.request(method)).isIdempotent == idempotent)
    }

    @Test("an explicit value wins over the method")
    func explicit() {
        #expect(TransportRequest(urlRequest: Self.request("POST"), isIdempotent: true).isIdempotent)
        #expect(!TransportRequest(urlRequest: Self.request("GET"), isIdempotent: false).isIdempotent)
    }

    @Test("the provider passes the target's resolvedIsIdempotent: a POST that opts in, a GET that opts out")
    func providerPassesTarget() async throws {
        let seen = SeenIdempotency()
        let transport = ClosureTransport { request in
            seen.append(request.isIdempotent)
            return Response(statusCode: 200, data: Data(), request: request.urlRequest)
        }
        let provider = Provider<Declared>(transport: transport)
        _ = try await provider.request(Declared(method: .post, isIdempotent: true))
        _ = try await provider.request(Declared(method: .get, isIdempotent: false))
        _ = try await provider.request(Declared(method: .post, isIdempotent: nil))
        #expect(seen.values == [true, false, false])
    }

    struct Declared: TargetType, RetryableTarget {
        var method: HTTPMethod
        var declared: Bool?
        init(method: HTTPMethod, isIdempotent: Bool?) {
            self.method = method
            self.declared = isIdempotent
        }
        var baseURL: URL { URL(string: "https://example.com")! }
        var path: String { "x" }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
        var isIdempotent: Bool { declared ?? [.get, .head, .put, .delete, .options, .trace].contains(method) }
    }

    final class SeenIdempotency: Sendable {
        private let stored = LockIsolated<[Bool]>([])
        func append(_ value: Bool) { stored.withValue { $0.append(value) } }
        var values: [Bool] { stored.value }
    }
}
