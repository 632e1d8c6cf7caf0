import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An `HTTPURLResponse` built the first time it is read (once, whichever thread reads it),
/// for a transport of this package that hands back a ``Response`` before building one.
///
/// On Linux, swift-corelibs-foundation's `HTTPURLResponse` initializer canonicalises every
/// header name through `NSString` and parses `Content-Type` character by character: about
/// 15 µs a response, more than the rest of a loopback request through `CurlTransport`, and
/// most callers read only the status and the body.
package final class DeferredHTTPResponse: Sendable {
    private enum State {
        case pending(@Sendable () -> HTTPURLResponse?)
        case built(HTTPURLResponse?)
    }

    private let state: Locked<State>

    /// A response that `build` makes when it is first read.
    package init(_ build: @escaping @Sendable () -> HTTPURLResponse?) {
        state = Locked(.pending(build))
    }

    /// The response, built now if it was not yet.
    package var value: HTTPURLResponse? {
        state.withValue { state in
            switch state {
            case .built(let response):
                return response
            case .pending(let build):
                let response = build()
                state = .built(response)
                return response
            }
        }
    }
}
