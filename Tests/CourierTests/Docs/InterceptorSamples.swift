// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The Plugins article's "Around the send" sample, kept in sync by DocSamplesSyncTests.

enum InterceptorDocs {  // sample scaffold
struct RetryOnceOn503: RequestInterceptor {
    func intercept(
        _ request: URLRequest, context: RequestContext, next: RequestInterceptor.Next
    ) async throws(CourierError) -> Response {
        let response = try await next(request, context)
        guard response.statusCode == 503, context.isIdempotent, context.isReplayable else { return response }
        var again = context
        again.retries += 1
        return try await next(request, again)
    }
}
}  // sample scaffold

@Suite("Documentation: interceptors")
struct InterceptorSamplesTests {
    @Test("the Plugins article's RetryOnceOn503 sends a 503 once more")
    func retryOnce() async throws {
        let transport = ScriptedTransport()
        transport.enqueue(.status(503), .json("{}"), for: .get("/v1"))
        let provider = Provider<TestAPI>(transport: transport, plugins: [InterceptorDocs.RetryOnceOn503()])
        #expect(try await provider.request(.plain).statusCode == 200)
        #expect(transport.requestCount == 2)
    }
}
