// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples of TimeoutsAndRetries.md, kept in sync by DocSamplesSyncTests. The tests below
// run them against the scripted transport; the time-outs themselves are proven against the
// test server by IntegrationTests (FaultInjectionTests, TransportUnderTest).

enum TimeoutsAndRetries {  // sample scaffold
    typealias GitHub = TestingWithStubs.GitHub

    static func makeTimedProvider() -> Provider<GitHub> {
        let configuration = URLSessionTransport.defaultConfiguration()
        configuration.timeoutIntervalForRequest = 15
        configuration.timeoutIntervalForResource = 120
        return Provider<GitHub>(transport: URLSessionTransport(configuration: configuration))
    }

    static func makeImpatientSearchProvider() -> Provider<GitHub> {
        Provider<GitHub>(requestClosure: { endpoint in
            var request = try endpoint.urlRequest()
            if request.url?.path.hasPrefix("/search") == true {
                request.timeoutInterval = 5
            }
            return request
        })
    }

    static func makeResilientProvider() -> Provider<GitHub> {
        Provider<GitHub>(retryPolicy: RetryPolicy(maxRetries: 3, baseDelay: 0.2, maximumDelay: 5))
    }

    enum Payments: TargetType, RetryableTarget {
        case charge(cents: Int, idempotencyKey: String)

        var baseURL: URL { URL(string: "https://pay.example.com")! }
        var path: String { "charges" }
        var method: HTTPMethod { .post }
        var task: RequestTask {
            switch self {
            case .charge(let cents, _): .requestJSONEncodable(["amount": cents])
            }
        }
        var headers: [String: String]? {
            switch self {
            case .charge(_, let key): ["Idempotency-Key": key]
            }
        }
        var isIdempotent: Bool { true }
    }
}  // sample scaffold

extension TimeoutsAndRetries {
    @Suite("Timeouts and retries samples")
    struct Samples {
        @Test("the per-target time-out is set on the search request only")
        func perTargetTimeout() async throws {
            let provider = makeImpatientSearchProvider()
            let search = try await provider.requestClosure(provider.endpointClosure(.search(query: "swift", page: 1)))
            let zen = try await provider.requestClosure(provider.endpointClosure(.zen))
            #expect(search.timeoutInterval == 5)
            #expect(zen.timeoutInterval != 5)
            _ = makeTimedProvider()
        }

        @Test("the resilient policy retries a GET through two 503s and a time-out, then answers")
        func retriesAGet() async throws {
            let transport = ScriptedTransport()
            transport.enqueue(
                .status(503), .failure(URLError(.timedOut)), .status(503), .text("Design for failure."),
                for: .get("/zen"))
            let policy = makeResilientProvider().retryPolicy
            let provider = Provider<GitHub>(transport: transport, retryPolicy: policy)

            #expect(try await provider.request(.zen).mapString() == "Design for failure.")
            #expect(transport.requestCount == 4)
        }

        @Test("a POST is not retried unless its target says it is idempotent")
        func postsOptIn() async throws {
            let transport = ScriptedTransport()
            transport.always(.status(503), for: .any)
            let policy = RetryPolicy(maxRetries: 2, baseDelay: 0.01)

            let charged = try await Provider<Payments>(transport: transport, retryPolicy: policy)
                .request(.charge(cents: 100, idempotencyKey: "k1"))
            #expect(charged.statusCode == 503)
            #expect(transport.requestCount == 3, "the first attempt and two retries, all with the same key")
            #expect(Set(transport.requests.map { $0.value(forHTTPHeaderField: "Idempotency-Key") }) == ["k1"])

            transport.reset()
            transport.always(.status(503), for: .any)
            let plain = try await Provider<TokenRefresh.Account>(transport: transport, retryPolicy: policy)
                .request(.signUp(email: "ada@example.com"))
            #expect(plain.statusCode == 503)
            #expect(transport.requestCount == 1, "a POST without RetryableTarget is sent once")
        }
    }
}
