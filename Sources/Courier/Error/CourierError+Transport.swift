import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension CourierError {
    /// Wraps a transport failure for `request`, so that its description can name the
    /// request: a `URLError` gains the failing URL and method in its user info and stays a
    /// `URLError` with the same code (a ``RetryPolicy`` decides as before).
    static func transport(_ error: any Error, request: URLRequest) -> CourierError {
        CourierError(NetworkFailure.attaching(request, to: error))
    }
}
