import Foundation

extension Endpoint {
    /// The endpoint Moya makes for `target`: `URL(target:)`, its method, task and headers,
    /// and a 200 sample response with its ``TargetType/sampleData``, read when a stub answers.
    init(standardFor target: any TargetType) {
        self.init(
            url: URL(target: target), sample: .sampleData(of: target), method: target.method, task: target.task,
            httpHeaderFields: target.headers)
    }

    /// The sample response a stub answers with.
    func sampleResponse() -> EndpointSampleResponse {
        switch sample {
        case .closure(let closure): closure()
        case .sampleData(let target): .networkResponse(200, target.sampleData)
        }
    }

    /// Where an endpoint's sample response comes from.
    enum SampleSource: Sendable {
        /// The closure the endpoint was made with.
        case closure(SampleResponseClosure)
        /// 200 with the target's ``TargetType/sampleData``, read when a stub answers, as in
        /// Moya (sample data often comes from a file, and only a stub needs it). Held without a
        /// closure, so that a request that is not stubbed pays nothing for it.
        case sampleData(of: SampleTarget)

        static func sampleData(of target: any TargetType) -> SampleSource {
            .sampleData(of: SampleTarget(target: target))
        }
    }

    /// The target whose sample data a stub answers with.
    struct SampleTarget: Sendable {
        // Read only when a stub answers, which the provider does on the caller's actor, where
        // the target (and a conformance isolated to that actor) may be used.
        nonisolated(unsafe) let target: any TargetType

        var sampleData: Data { target.sampleData }
    }
}
