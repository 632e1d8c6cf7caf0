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
    /// - Parameters:
    ///   - target: the call to send.
    ///   - callbackQueue: where `progress` and `completion` run; defaults to the provider's
    ///     ``callbackQueue``, then the main queue.
    ///   - progress: called as an upload or download advances, ending with the response.
    ///   - completion: called exactly once.
    /// - Returns: a handle that cancels the request.
    @discardableResult
    public func request(
        _ target: Target,
        callbackQueue: DispatchQueue? = nil,
        progress: ProgressBlock? = nil,
        completion: @escaping Completion
    ) -> any Cancellable {
        let queue = callbackQueue ?? self.callbackQueue ?? .main
        let task = Task {
            let result: Result<Response, CourierError>
            if let progress {
                let tracker = ProgressTracker { step in queue.async { progress(step) } }
                result = await ProgressContext.$current.withValue(tracker) {
                    await self.result(for: target)
                }
                if case .success(let response) = result {
                    tracker.finish(with: response)
                }
            } else {
                result = await self.result(for: target)
            }
            queue.async { completion(result) }
        }
        return TaskCancellable(task: task)
    }

    /// The request's outcome as a `Result`, for the callback and stream forms.
    func result(for target: Target) async -> Result<Response, CourierError> {
        do throws(CourierError) {
            return .success(try await request(target))
        } catch {
            return .failure(error)
        }
    }
}
