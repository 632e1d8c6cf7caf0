import Foundation

extension Endpoint {
    /// The endpoint Moya makes for `target`: `URL(target:)`, its method, task and headers,
    /// and a 200 sample response with its ``TargetType/sampleData``, read when a stub answers.
    init(standardFor target: any TargetType) {
        // Read lazily, as in Moya: sample data often comes from a file, and only a stub needs
        // it. The provider answers a stub on the caller's actor, where the target may be read.
        nonisolated(unsafe) let target = target
        self.init(
            url: URL(target: target),
            sampleResponseClosure: { .networkResponse(200, target.sampleData) },
            method: target.method,
            task: target.task,
            httpHeaderFields: target.headers)
    }
}
