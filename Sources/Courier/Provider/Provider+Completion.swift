import Dispatch
import Foundation

/// Called once with a request's result, as Moya's `Completion`.
///
/// ```swift
/// let completion: Completion = { result in
///     if case .failure(let error) = result { print(error) }
/// }
/// provider.request(.zen, completion: completion)
/// ```
public typealias Completion = @Sendable (_ result: Result<Response, CourierError>) -> Void

/// Called as an upload or download advances, as Moya's `ProgressBlock`; the last call carries
/// the ``ProgressResponse/response``.
public typealias ProgressBlock = @Sendable (_ progress: ProgressResponse) -> Void

extension Provider {
    /// Called as a transfer advances; the module-level ``Courier/ProgressBlock``.
    public typealias ProgressBlock = Courier.ProgressBlock
    /// Called once with the result; the module-level ``Courier/Completion``.
    public typealias Completion = Courier.Completion

    /// Sends `target` and calls `completion` with the result, Moya's way.
    ///
    /// ```swift
    /// let request = provider.request(.zen) { result in
    ///     switch result {
    ///     case .success(let response): print(try? response.mapString())
    ///     case .failure(let error): print(error)
    ///     }
    /// }
    /// request.cancel()  // stops the transfer; completion gets .cancelled
    /// ```
    ///
    /// Where the handlers run: a handler written in actor-isolated code — main-actor code in
    /// an app, where it may update the view model as it is — runs on that actor; a handler
    /// with no isolation (written outside any actor, or a ``Courier/Completion`` value) runs on
    /// `callbackQueue`, else the provider's ``callbackQueue``, else the main queue, as in
    /// Moya. The request is built on the caller's actor, like ``request(_:)``.
    ///
    /// - Parameters:
    ///   - target: the call to send.
    ///   - callbackQueue: where `progress` and `completion` run when they are not isolated to
    ///     an actor; defaults to the provider's ``callbackQueue``, then the main queue.
    ///   - progress: called as an upload or download advances, ending with the response.
    ///   - isolation: the caller's actor, where the request is built (filled in for you).
    ///   - completion: called exactly once, after the last `progress`.
    /// - Returns: a handle that cancels the request.
    @discardableResult
    public func request(
        _ target: Target,
        callbackQueue: DispatchQueue? = nil,
        // Inheriting the caller's isolation is what lets a handler written in main-actor code
        // update main-actor state, as `Task.init` does for its operation.
        @_inheritActorContext progress: (@isolated(any) @Sendable (_ progress: ProgressResponse) -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation,
        @_inheritActorContext completion:
            @escaping @isolated(any) @Sendable (
                _ result: Result<Response, CourierError>
            ) -> Void
    ) -> any Cancellable {
        let delivery = CallbackDelivery(
            queue: callbackQueue ?? self.callbackQueue ?? .main, progress: progress, completion: completion)
        let task = Task {
            _ = isolation  // The request is built on the caller's actor, where the target belongs.
            let result: Result<Response, CourierError>
            if progress != nil {
                let tracker = ProgressTracker { step in delivery.progress(step) }
                result = await ProgressContext.$current.withValue(tracker) {
                    await self.result(for: target)
                }
                if case .success(let response) = result {
                    tracker.finish(with: response)
                }
            } else {
                result = await self.result(for: target)
            }
            delivery.complete(result)
        }
        return TaskCancellable(task: task)
    }

    /// The request's outcome as a `Result`, for the callback and stream forms.
    nonisolated(nonsending) func result(for target: Target) async -> Result<Response, CourierError> {
        do throws(CourierError) {
            return .success(try await request(target))
        } catch {
            return .failure(error)
        }
    }
}
