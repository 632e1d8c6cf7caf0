extension Provider {
    /// Sends `target` and streams its progress; the last element carries the ``Response``.
    ///
    /// ```swift
    /// for try await step in provider.requestWithProgress(.upload(file)) {
    ///     if let response = step.response { print("done", response.statusCode) }
    ///     else { print("\(Int(step.progress * 100)) %") }
    /// }
    /// ```
    ///
    /// Progress never goes back, even when a request is replayed after a token refresh, and
    /// ends at 1. Cancelling the task that iterates (or ending the iteration) cancels the
    /// transfer. The stream throws a ``CourierError``.
    ///
    /// The request is built on the caller's actor (`isolation`, filled in for you), like
    /// ``request(_:)``.
    public func requestWithProgress(_ target: Target, isolation: isolated (any Actor)? = #isolation)
        -> AsyncThrowingStream<ProgressResponse, any Error>
    {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ProgressResponse.self)
        let task = Task {
            _ = isolation  // The request is built on the caller's actor, where the target belongs.
            let tracker = ProgressTracker { step in continuation.yield(step) }
            let result = await ProgressContext.$current.withValue(tracker) {
                await self.result(for: target)
            }
            switch result {
            case .success(let response):
                tracker.finish(with: response)
                continuation.finish()
            case .failure(let error):
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
