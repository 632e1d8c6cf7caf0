import Dispatch
import Foundation

/// Delivers the progress steps and the completion of one completion-form call, in order,
/// each where its handler belongs: a handler isolated to an actor (one written in
/// main-actor code, say) runs on that actor; a handler that is not runs on the callback
/// queue, as in Moya.
///
/// One task takes the events one after the other, so steps never overtake each other or
/// the completion, whatever threads they come from.
final class CallbackDelivery: Sendable {
    /// A progress handler: where it runs is its own isolation, or the callback queue.
    typealias ProgressHandler = @isolated(any) @Sendable (ProgressResponse) -> Void
    /// A completion handler: where it runs is its own isolation, or the callback queue.
    typealias CompletionHandler = @isolated(any) @Sendable (Result<Response, CourierError>) -> Void

    private enum Event: Sendable {
        case progress(ProgressResponse)
        case completion(Result<Response, CourierError>)
    }

    private let events: AsyncStream<Event>.Continuation

    init(queue: DispatchQueue, progress: ProgressHandler?, completion: @escaping CompletionHandler) {
        let (stream, events) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        self.events = events
        let deliver: @Sendable () async -> Void = {
            for await event in stream {
                switch event {
                case .progress(let step): await progress?(step)
                case .completion(let result): await completion(result)
                }
            }
        }
        // A handler with no isolation of its own is synchronous and nonisolated: called from
        // a task whose executor is the queue, it runs on the queue.
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            Task(executorPreference: DispatchQueueExecutor(queue), operation: deliver)
        } else if queue === DispatchQueue.main {
            Task { @MainActor in await deliver() }
        } else {
            // Before task executors (Apple systems older than 2024), a nonisolated handler
            // runs on the global executor, in order, instead of on the queue itself.
            Task(operation: deliver)
        }
    }

    /// Delivers a progress step.
    func progress(_ step: ProgressResponse) {
        events.yield(.progress(step))
    }

    /// Delivers the completion, after every step delivered before it; nothing comes after.
    func complete(_ result: Result<Response, CourierError>) {
        events.yield(.completion(result))
        events.finish()
    }
}

/// Runs a task's jobs on a dispatch queue, so that the nonisolated handlers it calls run
/// there.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class DispatchQueueExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(_ queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
