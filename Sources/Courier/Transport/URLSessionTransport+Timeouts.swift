import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The time-outs, turned into values `URLSession` honours.
///
/// swift-corelibs-foundation converts the request time-out with `Int(seconds) * 1000`: an
/// infinite or huge value traps (the process crashes on the first request), and a fraction is
/// cut to whole seconds (0.5 s becomes no time at all: every request fails at once). It ignores
/// `timeoutIntervalForResource` altogether; the transport enforces that one itself.
extension URLSessionTransport {
    /// The longest time-out the transport honours: 30 days, as CourierCurl.
    static let longestTimeout: TimeInterval = 30 * 24 * 3600

    /// A request (idle) time-out in whole seconds, as corelibs counts them: rounded up to at
    /// least 1 s, at most ``longestTimeout``; zero, negative or NaN means no limit (the
    /// longest), as CourierCurl reads it.
    static func requestLimit(_ seconds: TimeInterval) -> TimeInterval {
        // `!(seconds > 0)` is true for NaN too.
        guard seconds > 0 else { return longestTimeout }
        return min(longestTimeout, max(1, seconds.rounded(.up)))
    }

    /// The whole-request time-out: at most ``longestTimeout``; zero, negative or NaN means no
    /// limit (the longest).
    static func resourceLimit(_ seconds: TimeInterval) -> TimeInterval {
        guard seconds > 0 else { return longestTimeout }
        return min(longestTimeout, seconds)
    }

    /// A copy of `configuration` whose request time-out `URLSession` can take (the caller's
    /// object is not changed).
    static func honouredConfiguration(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let limit = requestLimit(configuration.timeoutIntervalForRequest)
        guard limit != configuration.timeoutIntervalForRequest,
            let copy = configuration.copy() as? URLSessionConfiguration
        else { return configuration }
        copy.timeoutIntervalForRequest = limit
        return copy
    }

    /// `request` with a `timeoutInterval` that `URLSession` can take. One already in whole
    /// seconds is left alone: setting it, even to its default, would make it override the
    /// configuration's.
    static func honouredRequest(_ request: URLRequest) -> URLRequest {
        let limit = requestLimit(request.timeoutInterval)
        guard limit != request.timeoutInterval else { return request }
        var honoured = request
        honoured.timeoutInterval = limit
        return honoured
    }
}
