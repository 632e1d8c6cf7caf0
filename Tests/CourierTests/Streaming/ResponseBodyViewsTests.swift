import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The typed views of a streamed body, read from a scripted stream cut at random places.
@Suite("Streamed body views", .timeLimit(.minutes(20)))
struct ResponseBodyViewsTests {
    private let request = TransportRequest(urlRequest: URLRequest(url: URL(string: "http://127.0.0.1/stream")!))

    private func transport(_ text: String, seed: UInt64, end: StreamScript.Step? = nil) -> ScriptedStreamTransport {
        var random = SeededRandomNumberGenerator(seed: seed)
        let chunks = StreamChunking.cut(Array(text.utf8), maxChunk: 9, using: &random)
        return ScriptedStreamTransport { _, _ in
            var script = StreamScript(headers: ["Content-Type": "text/event-stream"])
            for chunk in chunks { script = script.chunk(Data(chunk)) }
            if let end { script.steps.append(end) }
            return script
        }
    }

    @Test("serverSentEvents() reads the same events however the body was cut", arguments: 0..<10)
    func serverSentEvents(seed: UInt64) async throws {
        let text =
            "\u{FEFF}retry: 100\r\nid: 1\r\nevent: delta\r\ndata: Hé\r\n\r\n: ping\n\nid: 2\ndata: 😀\ndata: x\n\ndata: cut"
        let streamed = try await transport(text, seed: seed).stream(request, options: StreamOptions(bufferLimit: 16))
        var events: [ServerSentEvent] = []
        for try await event in streamed.body.serverSentEvents() { events.append(event) }
        #expect(
            events == [
                ServerSentEvent(type: "delta", data: "Hé", id: "1", retry: .milliseconds(100)),
                ServerSentEvent(data: "😀\nx", id: "2", retry: .milliseconds(100)),
            ])
    }

    @Test("A dropped connection reaches the reader after the events it completed")
    func droppedConnection() async throws {
        let transport = transport("data: a\n\ndata: b", seed: 1, end: .fail(URLError(.networkConnectionLost)))
        let streamed = try await transport.stream(request, options: StreamOptions())
        var events: [String] = []
        await #expect(throws: URLError(.networkConnectionLost)) {
            for try await event in streamed.body.serverSentEvents() { events.append(event.data) }
        }
        #expect(events == ["a"])
    }

    @Test("Leaving an event loop early closes the connection")
    func earlyExit() async throws {
        let transport = ScriptedStreamTransport { _, _ in
            StreamScript().chunk("data: a\n\n").wait(for: Gate()).chunk("data: never\n\n")
        }
        let streamed = try await transport.stream(request, options: StreamOptions())
        for try await event in streamed.body.serverSentEvents() {
            #expect(event.data == "a")
            break
        }
        _ = try await transport.closedByReader.wait(forAtLeast: 1)
    }

    @Test("lines() and jsonLines(of:) read lines and values, the last without a line end", arguments: 0..<5)
    func linesAndJSONLines(seed: UInt64) async throws {
        struct Item: Decodable, Equatable { let n: Int }
        let text = "{\"n\":1}\r\n{\"n\":2}\n\n{\"n\":3}"
        let lines = try await transport(text, seed: seed).stream(request, options: StreamOptions())
        var got: [String] = []
        for try await line in lines.body.lines() { got.append(line) }
        #expect(got == ["{\"n\":1}", "{\"n\":2}", "", "{\"n\":3}"])
        let values = try await transport(text, seed: seed).stream(request, options: StreamOptions())
        var items: [Item] = []
        for try await item in values.body.jsonLines(of: Item.self) { items.append(item) }
        #expect(items == [Item(n: 1), Item(n: 2), Item(n: 3)])
    }
}
