import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A plugin as apps write them: a struct that adds a header and logs what it sees.
public struct RequestIDPlugin: PluginType {
    public init() {}

    public func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        var request = request
        request.setValue("req-\(target.path)", forHTTPHeaderField: "X-Request-ID")
        return request
    }

    public func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
        if case .failure(let error) = result {
            print("request \(target.path) failed: \(error)")
        }
    }
}

/// An around-the-send plugin as apps write them: sends a request once more after a 503.
public struct RetryOnceInterceptor: RequestInterceptor {
    public init() {}

    public func intercept(
        _ request: URLRequest, context: RequestContext, next: RequestInterceptor.Next
    ) async throws(CourierError) -> Response {
        let response = try await next(request, context)
        guard response.statusCode == 503, context.isIdempotent, context.isReplayable else { return response }
        var again = context
        again.retries += 1
        return try await next(request, again)
    }
}
