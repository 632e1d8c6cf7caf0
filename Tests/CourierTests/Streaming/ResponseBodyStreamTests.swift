import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The hand-over between a transport and the reader of a streamed body: back-pressure,
/// cancellation both ways, the idle time-out, and the scripted stream transport built on it.
@Suite("Streamed response bodies", .timeLimit(.minutes(20)))
struct ResponseBodyStreamTests {
    private let request = URLRequest(url: URL(string: "http://127.0.0.1/events?access_token=secret")!)

    private func body(limit: Int, idleTimeout: Duration? = nil) -> (ResponseBodyStream, ResponseBodyStream.Producer) {
        let made = ResponseBodyStream.makeStream(
            options: StreamOptions(bufferLimit: limit, idleTimeout: idleTimeout), request: request)
        return (made.body, made.producer)
    }

    @Test("A reader slower than the producer pauses it: never more than the bound waits unread", arguments: 0..<20)
    func backPressure(round: Int) async throws {
        let (body, producer) = body(limit: 64)
        let chunks = (0..<200).map { Data(repeating: UInt8($0 % 256), count: 1 + ($0 + round) % 16) }
        let producing = Task {
            for chunk in chunks {
                guard await producer.send(chunk) else { return }
            }
            producer.finish()
        }
        var received: [Data] = []
        var largestUnread = 0
        for try await chunk in body {
            largestUnread = max(largestUnread, body.owner.buffer.unreadBytes)
            received.append(chunk)
            await Task.yield()
        }
        await producing.value
        #expect(received == chunks)
        #expect(largestUnread < 64 + 16, "at most the bound plus the chunk that reached it")
    }

    @Test("A producer told to pause is resumed once the reader took the buffer down to half")
    func pauseAndDemand() async throws {
        let (body, producer) = body(limit: 8)
        let demanded = CallCounter()
        producer.onDemand { _ = demanded.increment() }
        #expect(producer.yield(Data(count: 4)))
        #expect(!producer.yield(Data(count: 4)), "the bound is reached: pause")
        var iterator = body.makeAsyncIterator()
        _ = try await iterator.next()
        #expect(demanded.value == 1, "4 bytes left of 8: resume")
        _ = try await iterator.next()
        producer.finish()
        #expect(try await iterator.next() == nil)
    }

    @Test("Cancelling the reading task closes the connection and ends the read with CancellationError")
    func cancellation() async throws {
        let (body, producer) = body(limit: 1024)
        let closed = CallCounter()
        producer.onTermination { _ = closed.increment() }
        let started = Gate()
        let reader = Task {
            var iterator = body.makeAsyncIterator()
            started.open()
            return try await iterator.next()
        }
        try await started.wait()
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        _ = try await closed.wait(forAtLeast: 1)
        #expect(!producer.yield(Data("late".utf8)), "nothing more is taken after the reader stopped")
        #expect(closed.value == 1)
    }

    @Test("Ending the loop early closes the connection, even while the body is still held")
    func loopEndsEarly() async throws {
        let (body, producer) = body(limit: 1024)
        let closed = CallCounter()
        producer.onTermination { _ = closed.increment() }
        producer.yield(Data("one".utf8))
        producer.yield(Data("two".utf8))
        for try await _ in body { break }
        _ = try await closed.wait(forAtLeast: 1)
        #expect(!producer.yield(Data("three".utf8)))
        withExtendedLifetime(body) {}
    }

    @Test("Dropping a body unread closes the connection")
    func droppedUnread() async throws {
        let closed = CallCounter()
        do {
            let (_, producer) = body(limit: 1024)
            producer.onTermination { _ = closed.increment() }
        }
        _ = try await closed.wait(forAtLeast: 1)
    }

    @Test("A body that ended needs no closing; its chunks come before its error")
    func endWithError() async throws {
        let (body, producer) = body(limit: 1024)
        let closed = CallCounter()
        producer.onTermination { _ = closed.increment() }
        producer.yield(Data("a".utf8))
        producer.finish(throwing: URLError(.networkConnectionLost))
        var iterator = body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("a".utf8))
        await #expect(throws: URLError(.networkConnectionLost)) { try await iterator.next() }
        #expect(closed.value == 0)
    }

    @Test(
        "A reader left waiting for the idle time-out gets a StreamIdleTimeout naming the request, and the connection closes"
    )
    func idleTimeout() async throws {
        let (body, producer) = body(limit: 1024, idleTimeout: .milliseconds(50))
        let closed = CallCounter()
        producer.onTermination { _ = closed.increment() }
        producer.yield(Data("12345".utf8))
        var iterator = body.makeAsyncIterator()
        #expect(try await iterator.next()?.count == 5)
        do {
            _ = try await iterator.next()
            Issue.record("a quiet stream did not time out")
        } catch let error as StreamIdleTimeout {
            #expect(error.receivedBytes == 5)
            #expect(error.idleTimeout == .milliseconds(50))
            #expect("\(error)".contains("GET http://127.0.0.1/events"))
            #expect(!"\(error)".contains("secret"))
        }
        _ = try await closed.wait(forAtLeast: 1)
    }

    @Test("The scripted transport gives the head before the body, plays chunks, and cuts at byte N")
    func scriptedTransport() async throws {
        let gate = Gate()
        let transport = ScriptedStreamTransport { _, _ in
            StreamScript(headers: ["Content-Type": "text/event-stream"])
                .wait(for: gate)
                .chunk("id: 1\ndata: a\n\n")
                .chunk("id: 2\ndata: b\n\n")
                .cut(atByte: 20)
        }
        let streamed = try await transport.stream(TransportRequest(urlRequest: request), options: StreamOptions())
        #expect(streamed.statusCode == 200)
        #expect(streamed.response.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
        gate.open()
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        await #expect(throws: URLError(.networkConnectionLost)) {
            for try await chunk in streamed.body {
                try parser.parse(chunk) { events.append($0) }
            }
        }
        #expect(events.map(\.data) == ["a"])
        #expect(streamed.body.receivedBytes == 20)
        #expect(transport.connects.count == 1)
    }

    @Test("The scripted transport stops playing when the reader stops")
    func scriptedTransportStops() async throws {
        let transport = ScriptedStreamTransport { _, _ in
            StreamScript().chunk("a").wait(for: Gate()).chunk("never")
        }
        let streamed = try await transport.stream(TransportRequest(urlRequest: request), options: StreamOptions())
        for try await chunk in streamed.body {
            #expect(chunk == Data("a".utf8))
            break
        }
        _ = try await transport.closedByReader.wait(forAtLeast: 1)
    }
}
