// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The MetricsAndTracing article's samples, kept in sync by DocSamplesSyncTests.

enum TelemetryDocs {  // sample scaffold
    static func logTiming(of provider: Provider<Shop>) async throws {
        let response = try await provider.request(.order(id: 42))
        print(response.metrics?.summary ?? "not measured")
        // total 12.4 ms (dns 0.1, connect 0.3, tls 2, first byte 9.8); sent 0 B, received 1.2 KB; h2, reused
    }

    enum Shop: TargetType {
        case order(id: Int)
        case cart

        var baseURL: URL { URL(string: "https://shop.example.com")! }
        var path: String {
            switch self {
            case .order(let id): "orders/\(id)"
            case .cart: "cart"
            }
        }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }

        var route: String {
            switch self {
            case .order: "orders/{id}"
            case .cart: "cart"
            }
        }
    }

    // Stand-ins for a tracing library's tracer and span.
    protocol ClientTracer: Sendable {
        func startClientSpan(_ operationName: String) -> any ClientSpan
    }

    protocol ClientSpan: Sendable {
        var w3cTraceparent: String? { get }
        func setAttribute(_ value: String, forKey key: String)
        func setError()
        func end()
    }

    /// Forwards Courier's spans and durations to a tracer and a histogram.
    struct TracingTelemetry: RequestTelemetry {
        let tracer: any ClientTracer
        let recordDuration: @Sendable (Double, [String: String]) -> Void
        let addToCounter: @Sendable (String, Int, [String: String]) -> Void

        func attemptStarted(_ attempt: TelemetryAttempt) -> any TelemetrySpan {
            let span = tracer.startClientSpan(attempt.spanName)
            for (key, value) in attempt.attributes {
                span.setAttribute(value.description, forKey: key)
            }
            return ForwardedSpan(span: span)
        }

        func recordRequestDuration(_ seconds: Double, attributes: [String: TelemetryValue]) {
            recordDuration(seconds, attributes.mapValues(\.description))
        }

        func addToCounter(_ name: String, _ value: Int, attributes: [String: TelemetryValue]) {
            addToCounter(name, value, attributes.mapValues(\.description))
        }

        private struct ForwardedSpan: TelemetrySpan {
            let span: any ClientSpan

            var traceparent: String? { span.w3cTraceparent }

            func end(_ outcome: TelemetryOutcome) {
                for (key, value) in outcome.attributes {
                    span.setAttribute(value.description, forKey: key)
                }
                if outcome.isError { span.setError() }
                span.end()
            }
        }
    }

    static func makeTracedProvider(tracer: any ClientTracer) -> Provider<Shop> {
        let telemetry = TracingTelemetry(tracer: tracer, recordDuration: { _, _ in }, addToCounter: { _, _, _ in })
        return Provider<Shop>(plugins: [TelemetryPlugin(telemetry)])
    }
}  // sample scaffold

@Suite("Telemetry samples")
struct TelemetrySamples {
    /// A tracer that keeps what it was told.
    final class FakeTracer: TelemetryDocs.ClientTracer {
        final class Span: TelemetryDocs.ClientSpan {
            let name: String
            let attributes = LockIsolated<[String: String]>([:])
            let failed = LockIsolated(false)
            let ended = LockIsolated(false)
            init(name: String) { self.name = name }
            var w3cTraceparent: String? { "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }
            func setAttribute(_ value: String, forKey key: String) { attributes.withValue { $0[key] = value } }
            func setError() { failed.setValue(true) }
            func end() { ended.setValue(true) }
        }

        let spans = LockIsolated<[Span]>([])

        func startClientSpan(_ operationName: String) -> any TelemetryDocs.ClientSpan {
            let span = Span(name: operationName)
            spans.withValue { $0.append(span) }
            return span
        }
    }

    @Test("the adapter forwards each attempt's span, its attributes and its status, and the trace context goes out")
    func adapter() async throws {
        let tracer = FakeTracer()
        let durations = LockIsolated<[[String: String]]>([])
        let transport = ScriptedTransport()
        transport.enqueue(.status(404), for: .get("/orders/42"))
        let telemetry = TelemetryDocs.TracingTelemetry(
            tracer: tracer, recordDuration: { _, attributes in durations.withValue { $0.append(attributes) } },
            addToCounter: { _, _, _ in })
        let provider = Provider<TelemetryDocs.Shop>(transport: transport, plugins: [TelemetryPlugin(telemetry)])
        let response = try await provider.request(.order(id: 42))
        #expect(response.statusCode == 404)
        let span = try #require(tracer.spans.value.first)
        #expect(span.name == "GET orders/{id}")
        #expect(span.attributes.value["http.response.status_code"] == "404")
        #expect(span.attributes.value["url.full"] == "https://shop.example.com/orders/42")
        #expect(span.failed.value && span.ended.value)
        #expect(durations.value.first?["error.type"] == "404")
        #expect(transport.lastRequest?.value(forHTTPHeaderField: "traceparent") == span.w3cTraceparent)
        #expect(TelemetryDocs.makeTracedProvider(tracer: tracer).plugins.count == 1)
    }
}
