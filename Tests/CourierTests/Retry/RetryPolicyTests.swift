import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Records the waits instead of sleeping.
final class RecordedSleeps: Sendable {
    private let delays = LockIsolated<[TimeInterval]>([])
    var all: [TimeInterval] { delays.value }
    func record(_ delay: TimeInterval) { delays.withValue { $0.append(delay) } }
}

private struct Target: TargetType, RetryableTarget {
    var method: HTTPMethod = .get
    var idempotent: Bool?
    var baseURL: URL { URL(string: "https://api.example.com")! }
    var path: String { "r" }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var isIdempotent: Bool { idempotent ?? [HTTPMethod.get, .put, .delete, .head, .options, .trace].contains(method) }
}

@Suite("RetryPolicy", .timeLimit(.minutes(20)))
struct RetryPolicyTests {
    let sleeps = RecordedSleeps()

    func policy(maxRetries: Int = 3, random: Double = 0.5, now: Date = Date()) -> RetryPolicy {
        let sleeps = self.sleeps
        return RetryPolicy(
            maxRetries: maxRetries, baseDelay: 1, maximumDelay: 5, maximumRetryAfter: 30,
            random: { random }, now: { now }, sleep: { sleeps.record($0) })
    }

    @Test(
        "transient statuses are retried with exponential full-jitter backoff, capped",
        arguments: [408, 429, 500, 502, 503, 504])
    func retriesStatuses(code: Int) async throws {
        let transport = ScriptedTransport(replies: [.status(code), .status(code), .status(code), .status(200)])
        let provider = Provider<Target>(transport: transport, retryPolicy: policy())
        let response = try await provider.request(Target())
        #expect(response.statusCode == 200)
        #expect(transport.requestCount == 4)
        // random 0.5 × min(5, 1 × 2^n): 0.5, 1, 2
        #expect(sleeps.all == [0.5, 1, 2])
    }

    @Test("the cap bounds the backoff and the jitter stays within [0, ceiling]")
    func jitterBounds() {
        for value in [0.0, 0.25, 0.999_999] {
            let policy = self.policy(maxRetries: 20, random: value)
            for retry in 0..<20 {
                let ceiling = min(5, pow(2, Double(retry)))
                let delay = policy.backoff(retry)
                #expect(delay >= 0 && delay <= ceiling)
                #expect(abs(delay - ceiling * value) < 1e-9)
            }
        }
    }

    @Test("gives up after maxRetries and returns the last answer")
    func givesUp() async throws {
        let transport = ScriptedTransport(replies: Array(repeating: .status(503), count: 10))
        let provider = Provider<Target>(transport: transport, retryPolicy: policy(maxRetries: 2))
        #expect(try await provider.request(Target()).statusCode == 503)
        #expect(transport.requestCount == 3)
    }

    @Test("dropped connections and time-outs are retried; other errors are not")
    func urlErrors() async throws {
        let transient = ScriptedTransport(replies: [
            .failure(URLError(.networkConnectionLost)), .failure(URLError(.timedOut)), .status(200),
        ])
        #expect(
            try await Provider<Target>(transport: transient, retryPolicy: policy()).request(Target()).statusCode == 200)
        #expect(transient.requestCount == 3)

        let permanent = ScriptedTransport(replies: [.failure(URLError(.badURL)), .status(200)])
        await #expect(throws: CourierError.self) {
            try await Provider<Target>(transport: permanent, retryPolicy: policy()).request(Target())
        }
        #expect(permanent.requestCount == 1)
    }

    @Test("POST is not retried unless the target opts in; a GET can opt out")
    func idempotency() async throws {
        let post = ScriptedTransport(replies: [.status(503), .status(200)])
        #expect(
            try await Provider<Target>(transport: post, retryPolicy: policy()).request(Target(method: .post)).statusCode
                == 503)
        #expect(post.requestCount == 1)

        let optedIn = ScriptedTransport(replies: [.status(503), .status(200)])
        let response = try await Provider<Target>(transport: optedIn, retryPolicy: policy())
            .request(Target(method: .post, idempotent: true))
        #expect(response.statusCode == 200)

        let optedOut = ScriptedTransport(replies: [.status(503), .status(200)])
        #expect(
            try await Provider<Target>(transport: optedOut, retryPolicy: policy()).request(Target(idempotent: false))
                .statusCode == 503)
    }

    @Test("Retry-After in seconds and as an HTTP date is honoured, up to the maximum")
    func retryAfter() async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let inTwelve = formatter.string(from: now.addingTimeInterval(12))
        let transport = ScriptedTransport(replies: [
            .status(429, headers: ["Retry-After": "7"]), .status(503, headers: ["Retry-After": inTwelve]), .status(200),
        ])
        let provider = Provider<Target>(transport: transport, retryPolicy: policy(now: now))
        #expect(try await provider.request(Target()).statusCode == 200)
        #expect(sleeps.all == [7, 12])

        let tooLong = ScriptedTransport(replies: [.status(503, headers: ["Retry-After": "3600"]), .status(200)])
        #expect(
            try await Provider<Target>(transport: tooLong, retryPolicy: policy()).request(Target()).statusCode == 503)
        #expect(tooLong.requestCount == 1)
    }

    @Test("validation errors with a retryable status are retried too")
    func validatedStatus() async throws {
        struct Validated: TargetType {
            var baseURL: URL { URL(string: "https://api.example.com")! }
            var path: String { "v" }
            var method: HTTPMethod { .get }
            var task: RequestTask { .requestPlain }
            var headers: [String: String]? { nil }
            var validationType: ValidationType { .successCodes }
        }
        let transport = ScriptedTransport(replies: [.status(502), .status(200)])
        #expect(
            try await Provider<Validated>(transport: transport, retryPolicy: policy()).request(Validated()).statusCode
                == 200)
    }

    @Test("cancelling during a backoff cancels at once")
    func cancellationDuringBackoff() async throws {
        let transport = ScriptedTransport(replies: Array(repeating: .status(503), count: 10))
        let backingOff = CallCounter()
        let provider = Provider<Target>(
            transport: transport,
            retryPolicy: RetryPolicy(
                maxRetries: 5, baseDelay: 3_600, maximumDelay: 3_600, random: { 1 },
                sleep: { seconds in
                    backingOff.increment()
                    try await RetryPolicy.defaultSleep(seconds)
                }))
        let task = Task { try await provider.request(Target()) }
        try await backingOff.wait(forAtLeast: 1)
        task.cancel()
        // The backoff is an hour, longer than the suite's time limit: only the cancel can have
        // ended it (the .cancelled below proves it too).
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("the cancelled request succeeded")
            return
        }
        #expect((error as? CourierError)?.isCancelled == true)
        #expect(transport.requestCount == 1)
    }

    @Test("Retry-After parsing accepts the three HTTP date forms and rejects garbage")
    func retryAfterForms() {
        let now = Date(timeIntervalSince1970: 784_111_777 - 10)  // Sun, 06 Nov 1994 08:49:37 GMT minus 10 s
        let response: (String) -> HTTPURLResponse = {
            HTTPURLResponse(
                url: URL(string: "https://x")!, statusCode: 503, httpVersion: nil, headerFields: ["Retry-After": $0])!
        }
        let policy = RetryPolicy(maxRetries: 1, maximumRetryAfter: 100, random: { 0 }, now: { now })
        for header in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            let delay = policy.delay(
                after: .success(Response(statusCode: 503, data: Data(), response: response(header))), target: Target(),
                retries: 0)
            #expect(delay == 10, "\(header)")
        }
        for header in ["soon", "-5", ""] {
            let delay = policy.delay(
                after: .success(Response(statusCode: 503, data: Data(), response: response(header))), target: Target(),
                retries: 0)
            #expect(delay == 0, "garbage falls back to the jittered backoff (random 0): \(header)")
        }
    }
}
