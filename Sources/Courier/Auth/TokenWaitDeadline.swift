import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How long a request may wait for its token: its own time-out (`URLRequest.timeoutInterval`),
/// counted from the moment the re-authentication stage first asks for a token.
///
/// The session fails the waiters of a renewal after ``AuthSession/refreshTimeout``, and the
/// renewal goes on (a refresh another process holds the lease for, or a token endpoint that
/// stalls). A request whose own time-out has not passed then waits again for that same renewal,
/// instead of failing with `refreshFailed` while it could still be answered; once its time-out
/// has passed it fails as any request that timed out does, with `URLError(.timedOut)`.
struct TokenWaitDeadline {
    /// Monotonic nanoseconds.
    private let deadline: UInt64

    /// The deadline of a request whose time-out is `timeout` seconds (60, URLSession's default,
    /// when it is not a positive number), clamped as ``Delay/nanoseconds(_:)`` clamps.
    init(timeout: TimeInterval) {
        let seconds = timeout > 0 ? timeout : 60
        let (sum, overflow) = DispatchTime.now().uptimeNanoseconds.addingReportingOverflow(Delay.nanoseconds(seconds))
        deadline = overflow ? .max : sum
    }

    /// Whether the request's own time-out has passed.
    var hasPassed: Bool { DispatchTime.now().uptimeNanoseconds >= deadline }

    /// Whether `error` is the session's ``AuthSession/refreshTimeout`` passing while the
    /// renewal it waited for goes on: worth waiting again for, while the deadline allows.
    static func isRefreshTimeout(_ error: AuthenticationError) -> Bool {
        guard case .refreshFailed(let reason) = error else { return false }
        return reason is RefreshTimeout
    }

    /// What a request whose time-out passed while it waited for a token fails with: the time-out
    /// any request gets, naming its URL.
    static func timedOut(_ request: URLRequest) -> CourierError {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: "The request timed out while it waited for the access token to be renewed."
        ]
        if let url = request.url {
            info[NSURLErrorFailingURLErrorKey] = url
        }
        return .underlying(URLError(.timedOut, userInfo: info), nil)
    }
}
