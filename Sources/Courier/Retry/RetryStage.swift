import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A provider's ``RetryPolicy`` as a stage around the send: it calls `next` again, after the
/// policy's delay, while the policy says a failure is transient and the call may be sent
/// again (idempotent, and replayable). Each retry is a new attempt: every plugin's `prepare`
/// runs again, and a ``TelemetryPlugin`` records it as a span of its own.
///
/// It sits inside the re-authentication stage of a ``RefreshableProvider`` and outside your
/// own interceptors, so token replays and retries are counted apart (each replay starts with
/// the policy's whole budget).
struct RetryStage: RequestInterceptor {
    let policy: RetryPolicy

    nonisolated(nonsending) func intercept(_ request: URLRequest, context: RequestContext, next: Next)
        async throws(CourierError) -> Response
    {
        var context = context
        while true {
            let result: Result<Response, CourierError>
            do {
                result = .success(try await next(request, context))
            } catch {
                result = .failure(error)
            }
            guard context.isIdempotent, context.isReplayable,
                let delay = policy.delay(after: result, retries: context.retries)
            else {
                return try result.get()
            }
            context.retries += 1
            do {
                try await policy.sleep(delay)
            } catch {
                throw .cancelled
            }
            if Task.isCancelled { throw .cancelled }
        }
    }
}
