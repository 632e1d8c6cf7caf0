import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The development exporter prints a line per span and the duration histogram, through the
/// output closure the test captures.
@Suite("ConsoleTelemetry: a line per span, and the duration histogram")
struct ConsoleTelemetryTests {
    let lines = LockIsolated<[String]>([])

    func provider(status: Int) -> (Provider<TestAPI>, ConsoleTelemetry) {
        let console = ConsoleTelemetry { [lines] line in lines.withValue { $0.append(line) } }
        let provider = Provider<TestAPI>(
            transport: ClosureTransport { request in
                Response(statusCode: status, data: Data(), request: request.urlRequest)
            },
            plugins: [TelemetryPlugin(console)])
        return (provider, console)
    }

    @Test("each attempt prints one line: the span's name, status, duration and attributes")
    func spanLines() async throws {
        let (provider, _) = provider(status: 200)
        _ = try await provider.request(.user(id: 7))
        let printed = lines.value
        #expect(printed.count == 1)
        let line = try #require(printed.first)
        #expect(line.hasPrefix("span GET TestAPI.user 200 "))
        #expect(line.contains(" ms "))
        #expect(line.contains("http.request.method=GET"))
        #expect(line.contains("server.address=api.example.com"))
        #expect(line.contains("http.response.status_code=200"))
        #expect(!line.contains("ERROR"))
    }

    @Test("a 4xx answer's span says ERROR and carries error.type")
    func errorSpan() async throws {
        let (provider, _) = provider(status: 404)
        _ = try? await provider.request(.user(id: 7))
        let line = try #require(lines.value.first)
        #expect(line.hasPrefix("span GET TestAPI.user 404 "))
        #expect(line.contains(" ERROR "))
        #expect(line.contains("error.type=404"))
    }

    @Test("the histogram: one line per set of attributes, with count, sum and buckets")
    func histogram() async throws {
        let (provider, console) = provider(status: 200)
        _ = try await provider.request(.user(id: 1))
        _ = try await provider.request(.user(id: 2))
        _ = try await provider.request(.plain)
        lines.setValue([])
        console.printHistogram()
        let printed = lines.value
        #expect(printed.count == 2, "\(printed)")
        let user = try #require(printed.first { $0.contains("url.template=TestAPI.user") })
        #expect(user.hasPrefix("http.client.request.duration "))
        #expect(user.contains(" count 2 sum "))
        #expect(user.contains(" | ≤ "))
        #expect(printed.contains { $0.contains("url.template=TestAPI.plain") && $0.contains(" count 1 ") })
    }

    @Test("samples land in OpenTelemetry's default buckets")
    func buckets() {
        let console = ConsoleTelemetry { [lines] line in lines.withValue { $0.append(line) } }
        console.recordRequestDuration(0.003, attributes: ["k": .string("v")])
        console.recordRequestDuration(0.02, attributes: ["k": .string("v")])
        console.recordRequestDuration(0.02, attributes: ["k": .string("v")])
        console.recordRequestDuration(12, attributes: ["k": .string("v")])
        console.printHistogram()
        #expect(
            lines.value == [
                "http.client.request.duration k=v count 4 sum 12043.0 ms | ≤ 5.0 ms: 1 | ≤ 25.0 ms: 2 | > 10000.0 ms: 1"
            ])
    }
}
