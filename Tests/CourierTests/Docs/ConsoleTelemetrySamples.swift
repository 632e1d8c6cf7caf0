// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import Foundation

// MetricsAndTracing.md's console sample, kept in sync by DocSamplesSyncTests.

extension TelemetryDocs {  // sample scaffold
    static func watchRequests(_ work: (Provider<Shop>) async throws -> Void) async rethrows {
        let console = ConsoleTelemetry()
        let provider = Provider<Shop>(plugins: [TelemetryPlugin(console)])
        try await work(provider)
        // span GET orders/{id} 200 12.4 ms http.request.method=GET http.response.status_code=200 …
        console.printHistogram()
        // http.client.request.duration http.request.method=GET … count 3 sum 31.2 ms | ≤ 25.0 ms: 3
    }

    static func makeSummarizingProvider() -> Provider<Shop> {
        let console = ConsoleTelemetry(summaryEvery: .seconds(60))
        return Provider<Shop>(plugins: [TelemetryPlugin(console)])
        // summary 60.0 s: 4428 requests, 3 errors
        // summary GET orders/{id}: 4400 requests, 3 errors (timeout: 3), p50 1.9 ms p90 4.1 ms p99 12.0 ms max 61.3 ms
        // summary GET cart: 28 requests, 0 errors, p50 2.2 ms p90 3.0 ms p99 3.4 ms max 3.4 ms
        // summary courier.request.replays http.request.method=GET … url.template=orders/{id} +2
    }

    static func instrument(_ session: AuthSession, telemetry: any RequestTelemetry) -> (RefreshableProvider<Shop>, AuthSessionTelemetry) {
        let counters = AuthSessionTelemetry(session, telemetry: telemetry, attributes: ["tenant": .string("42")])
        let provider = RefreshableProvider<Shop>(auth: session, plugins: [TelemetryPlugin(telemetry)])
        return (provider, counters)
    }
}  // sample scaffold
