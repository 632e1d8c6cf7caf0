import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Retries requests that failed for a reason that may pass: time-outs, dropped connections,
/// and the status codes 408, 429, 500, 502, 503 and 504.
///
/// ```swift
/// let provider = Provider<MyAPI>(retryPolicy: RetryPolicy(maxRetries: 3))
/// ```
///
/// - Only idempotent requests are retried by default (`GET`, `HEAD`, `PUT`, `DELETE`,
///   `OPTIONS`, `TRACE`); a target opts a `POST` in (or any request out) with
///   ``RetryableTarget``.
/// - Waits grow exponentially with full jitter: a random time between 0 and
///   `min(maximumDelay, baseDelay × 2^retry)`, so clients that failed together do not come
///   back together.
/// - A `Retry-After` header (seconds or an HTTP date) is honoured up to
///   ``maximumRetryAfter``; a server asking for longer gets its response back at once.
/// - Each retry runs the whole pipeline again (plugins see every attempt). Cancelling the
///   task during a wait cancels at once.
/// - Retries count separately from ``RefreshableProvider``'s authentication replays: a
///   request may be retried after a 503 and still be replayed once after a 401.
public struct RetryPolicy: Sendable {
    /// How many times one request may be retried (not counting the first attempt).
    public var maxRetries: Int
    /// Status codes worth retrying.
    public var retryableStatusCodes: Set<Int>
    /// The first backoff ceiling, in seconds; it doubles with each retry.
    public var baseDelay: TimeInterval
    /// The largest backoff, in seconds.
    public var maximumDelay: TimeInterval
    /// The longest `Retry-After` honoured, in seconds; a longer one is not retried.
    public var maximumRetryAfter: TimeInterval
    /// `URLError` codes that count as transient.
    public var retryableURLErrorCodes: Set<URLError.Code>
    /// A random number in `0..<1`, for the jitter (tests inject a fixed one).
    public var random: @Sendable () -> Double
    /// The clock that reads `Retry-After` dates.
    public var now: @Sendable () -> Date
    /// Waits between attempts; throws when the task is cancelled.
    public var sleep: @Sendable (TimeInterval) async throws -> Void

    /// The status codes retried by default.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The `URLError` codes retried by default: time-outs and lost or refused connections.
    public static let defaultRetryableURLErrorCodes: Set<URLError.Code> = [
        .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet,
        .dnsLookupFailed, .cannotFindHost, .badServerResponse, .resourceUnavailable,
    ]

    /// Creates a policy.
    public init(
        maxRetries: Int = 2,
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        baseDelay: TimeInterval = 0.5,
        maximumDelay: TimeInterval = 30,
        maximumRetryAfter: TimeInterval = 60,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = RetryPolicy.defaultSleep
    ) {
        self.maxRetries = max(0, maxRetries)
        self.retryableStatusCodes = retryableStatusCodes
        self.baseDelay = max(0, baseDelay)
        self.maximumDelay = max(0, maximumDelay)
        self.maximumRetryAfter = max(0, maximumRetryAfter)
        self.retryableURLErrorCodes = retryableURLErrorCodes
        self.random = random
        self.now = now
        self.sleep = sleep
    }

    /// The default wait: `Task.sleep` for `seconds`, where a negative or NaN wait is none
    /// and an infinite or absurdly long one (a `Retry-After` dated in the year 9999 with
    /// `maximumRetryAfter: .infinity`) is capped at 100 years instead of trapping.
    /// Cancelling the task ends it at once with `CancellationError`.
    @Sendable public static func defaultSleep(_ seconds: TimeInterval) async throws {
        try await Delay.sleep(seconds: seconds)
    }

    /// How long to wait before retrying after `result`, or `nil` not to retry.
    ///
    /// - Parameters:
    ///   - result: what the last attempt gave, after validation and plugins.
    ///   - target: the request's target; only idempotent, replayable targets are retried.
    ///   - retries: how many retries this request has had so far.
    public func delay(after result: Result<Response, CourierError>, target: any TargetType, retries: Int)
        -> TimeInterval?
    {
        guard target.resolvedIsIdempotent, target.task.isReplayable else { return nil }
        return delay(after: result, retries: retries)
    }

    /// How long to wait before retrying after `result`, for a request that may be sent again.
    func delay(after result: Result<Response, CourierError>, retries: Int) -> TimeInterval? {
        guard retries < maxRetries else { return nil }
        switch result {
        case .success(let response), .failure(.statusCode(let response)):
            guard retryableStatusCodes.contains(response.statusCode) else { return nil }
            if let retryAfter = RetryAfter.seconds(in: response.response, now: now()) {
                return retryAfter <= maximumRetryAfter ? retryAfter : nil
            }
            return backoff(retries)
        case .failure(.underlying(let error, nil)):
            guard let urlError = error as? URLError, retryableURLErrorCodes.contains(urlError.code) else {
                return nil
            }
            return backoff(retries)
        case .failure:
            return nil
        }
    }

    /// Full jitter: a random time between 0 and `min(maximumDelay, baseDelay × 2^retries)`.
    public func backoff(_ retries: Int) -> TimeInterval {
        let ceiling = min(maximumDelay, baseDelay * pow(2, Double(min(retries, 62))))
        return ceiling * min(max(random(), 0), 1)
    }
}

/// Lets a target say whether it may be retried, whatever its method.
///
/// ```swift
/// extension PaymentsAPI: RetryableTarget {
///     // Every call carries an Idempotency-Key header, so POSTs may be retried too.
///     var isIdempotent: Bool { true }
/// }
/// ```
public protocol RetryableTarget {
    /// Whether sending this request twice has the same effect as sending it once.
    var isIdempotent: Bool { get }
}

extension TargetType {
    /// Whether the retry policy may retry this target: ``TargetType/isIdempotent``.
    package var resolvedIsIdempotent: Bool { isIdempotent }
}
