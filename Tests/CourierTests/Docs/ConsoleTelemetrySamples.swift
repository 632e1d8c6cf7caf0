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
}  // sample scaffold
