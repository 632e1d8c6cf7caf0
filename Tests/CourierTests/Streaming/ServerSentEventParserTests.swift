import CourierTesting
import Testing

@testable import Courier

/// WHATWG HTML §9.2.6 "Interpreting an event stream", rule by rule; every input is read whole,
/// one byte at a time and cut at seeded random places, and all readings must agree.
@Suite("Server-Sent Events parser")
struct ServerSentEventParserTests {
    private func events(_ text: String) -> [ServerSentEvent] {
        ParsedEventStream.parse(text).events
    }

    @Test("CR, LF and CRLF end lines, mixed in one stream, and a CRLF cut between chunks is one line end")
    func lineEnds() {
        #expect(events("data: a\r\ndata: b\rdata: c\ndata: d\r\n\r\n") == [ServerSentEvent(data: "a\nb\nc\nd")])
        #expect(events("data: a\r\rdata: b\n\ndata: c\r\n\r\n").map(\.data) == ["a", "b", "c"])
        // A CR then an LF in the next chunk is one line end, not an end and a blank line.
        var parser = ServerSentEventParser()
        var got = try! parser.parse(Array("data: a\r".utf8))
        got += try! parser.parse(Array("\ndata: b\r".utf8))
        got += try! parser.parse(Array("\n\r".utf8))
        got += try! parser.parse(Array("\n".utf8))
        #expect(got == [ServerSentEvent(data: "a\nb")])
    }

    @Test("One leading byte order mark is ignored; a second is part of the first field's name")
    func byteOrderMark() {
        #expect(events("\u{FEFF}data: x\n\n") == [ServerSentEvent(data: "x")])
        #expect(events("\u{FEFF}\u{FEFF}data: x\n\n").isEmpty)
        #expect(events("data: \u{FEFF}x\n\n") == [ServerSentEvent(data: "\u{FEFF}x")])
    }

    @Test("data lines are joined with LF; a data field with no value adds an empty line")
    func dataJoined() {
        #expect(events("data: one\ndata: two\ndata: three\n\n").map(\.data) == ["one\ntwo\nthree"])
        #expect(events("data\n\n") == [ServerSentEvent(data: "")])
        #expect(events("data:\ndata:\n\n") == [ServerSentEvent(data: "\n")])
        #expect(events("data: a:b: c\n\n").map(\.data) == ["a:b: c"])
    }

    @Test("One space after the colon is removed, only one, and only a space")
    func oneSpaceRemoved() {
        #expect(events("data:x\n\n").map(\.data) == ["x"])
        #expect(events("data: x\n\n").map(\.data) == ["x"])
        #expect(events("data:  x \n\n").map(\.data) == [" x "])
        #expect(events("data:\tx\n\n").map(\.data) == ["\tx"])
    }

    @Test("Comment lines are ignored, also inside an event and as the only lines")
    func comments() {
        #expect(events(": heartbeat\n\n:\n\n").isEmpty)
        #expect(events("data: a\n: between\ndata: b\n\n").map(\.data) == ["a\nb"])
    }

    @Test("event sets the type of its block only; a block without one is a message")
    func eventType() {
        let got = events("event: add\ndata: 1\n\ndata: 2\n\nevent\ndata: 3\n\n")
        #expect(got.map(\.type) == ["add", "message", "message"])
        #expect(events("event: Add \ndata\n\n").map(\.type) == ["Add "])
    }

    @Test("id carries over to later events, an empty id resets it, an id with NUL is ignored")
    func lastEventID() {
        let got = ParsedEventStream.parse(
            "id: 7\ndata: a\n\ndata: b\n\nid: 8\u{0}\ndata: c\n\nid\ndata: d\n\nid: 9\ndata: e\n\n")
        #expect(got.events.map(\.id) == ["7", "7", "7", "", "9"])
        #expect(got.lastEventID == "9")
    }

    @Test("A block of id alone sets the last event ID without dispatching an event")
    func idOnlyBlock() {
        let got = ParsedEventStream.parse("data: a\n\nid: 42\n\n")
        #expect(got.events == [ServerSentEvent(data: "a")])
        #expect(got.lastEventID == "42")
    }

    @Test("retry takes ASCII digits only; anything else is ignored")
    func retry() {
        #expect(ParsedEventStream.parse("retry: 1500\n").reconnectionTime == .milliseconds(1500))
        for invalid in ["retry: 15x", "retry: -1", "retry: 1.5", "retry:", "retry:  15", "retry: +5", "retry: ١٢"] {
            let got = ParsedEventStream.parse("retry: 300\n\(invalid)\ndata: a\n\n")
            #expect(got.reconnectionTime == .milliseconds(300), "\(invalid)")
            #expect(got.events.map(\.retry) == [.milliseconds(300)], "\(invalid)")
        }
        let huge = ParsedEventStream.parse("retry: 99999999999999999999999999999\n")
        #expect(huge.reconnectionTime == .milliseconds(Int64.max))
        #expect(ParsedEventStream.parse("data: a\n\n").events.map(\.retry) == [nil])
    }

    @Test("Unknown fields and field names that differ in case are ignored")
    func unknownFields() {
        #expect(events("foo: bar\nData: no\ndata: yes\nDATA: no\n\n").map(\.data) == ["yes"])
        #expect(events("foo: bar\n\n").isEmpty)
    }

    @Test("A block without data is not dispatched and its event type does not carry over")
    func blockWithoutData() {
        #expect(events("event: e\n\ndata: x\n\n") == [ServerSentEvent(data: "x")])
        #expect(events("event: e\nretry: 5\n\n").isEmpty)
    }

    @Test("An unterminated last block is not dispatched, however it ends")
    func unterminatedLastBlock() {
        for tail in ["data: x", "data: x\n", "data: x\r", "data: x\r\n", "data: x\nid: 3\n"] {
            let got = ParsedEventStream.parse("data: a\n\n" + tail)
            #expect(got.events == [ServerSentEvent(data: "a")], "\(tail.debugDescription)")
            #expect(got.discardedAtEnd, "\(tail.debugDescription)")
            #expect(got.lastEventID == "", "\(tail.debugDescription)")
        }
        #expect(!ParsedEventStream.parse("data: a\n\n").discardedAtEnd)
    }

    @Test("The body is UTF-8 always: multibyte characters cut between chunks, invalid bytes as U+FFFD")
    func utf8() {
        let text = "data: é😀中\u{10FFFF}\n\n"
        #expect(events(text).map(\.data) == ["é😀中\u{10FFFF}"])
        // Latin-1 bytes are not honoured, whatever a charset parameter said.
        let latin1: [UInt8] = Array("data: caf".utf8) + [0xE9] + Array("\n\n".utf8)
        #expect(ParsedEventStream.parse(latin1).events.map(\.data) == ["caf\u{FFFD}"])
        let truncated: [UInt8] = Array("data: ".utf8) + [0xE2, 0x82] + Array("\r\n\r\n".utf8)
        #expect(ParsedEventStream.parse(truncated).events.map(\.data) == ["\u{FFFD}"])
    }

    @Test("A 1 MiB event passes the default bound")
    func oneMebibyteEvent() {
        let payload = String(repeating: "abcdefgh", count: 128 * 1024)
        let got = events("event: big\ndata: \(payload)\n\ndata: after\n\n")
        #expect(got.map(\.data.utf8.count) == [1024 * 1024, 5])
        let lines = String(repeating: "data: \(String(repeating: "x", count: 1023))\n", count: 1024) + "\n"
        #expect(events(lines).map(\.data.utf8.count) == [1024 * 1024 - 1])
    }

    @Test("An event past a configured bound is a typed error, whether one long line or many")
    func boundedEvent() {
        let fits = "data: " + String(repeating: "x", count: 999) + "\n\n"
        #expect(ParsedEventStream.parse(fits, maximumEventSize: 1000).events.count == 1)
        for breach in [
            "data: " + String(repeating: "x", count: 1000) + "\n\n",
            String(repeating: "data: xxxxxxxxx\n", count: 101) + "\n",
            "data: " + String(repeating: "x", count: 5000),
            ": " + String(repeating: "c", count: 5000),
        ] {
            let got = ParsedEventStream.parse(breach, maximumEventSize: 1000)
            #expect(got.error?.kind == .eventTooLarge(limit: 1000))
            #expect(got.events.isEmpty)
        }
        var parser = ServerSentEventParser(maximumEventSize: 1000)
        #expect(throws: StreamDecodingError(kind: .eventTooLarge(limit: 1000), byteOffset: 2000)) {
            _ = try parser.parse(Array(repeating: UInt8(ascii: "x"), count: 2000))
        }
        #expect(
            "\(StreamDecodingError(kind: .eventTooLarge(limit: 1000), byteOffset: 2000))"
                == "the stream's event passed the bound of 1000 bytes after 2000 bytes")
    }

    @Test("Heartbeat comments never grow what the parser holds")
    func heartbeatsAreBounded() throws {
        var parser = ServerSentEventParser(maximumEventSize: 64)
        for _ in 0..<10_000 {
            let none = try parser.parse(Array(": keep-alive\n".utf8))
            #expect(none.isEmpty)
        }
        let got = try parser.parse(Array("data: still here\n\n".utf8))
        #expect(got.map(\.data) == ["still here"])
    }

    @Test("After finish the parser reads a reconnect's body: last event ID and retry kept, one BOM again")
    func reconnect() throws {
        var parser = ServerSentEventParser()
        let first = try parser.parse(Array("retry: 250\nid: 1\ndata: a\n\nid: 2\ndata: cut".utf8))
        #expect(first.map(\.id) == ["1"])
        let discarded = parser.finish()
        #expect(discarded)
        #expect(parser.lastEventID == "1")
        let resumed = try parser.parse(Array("\u{FEFF}data: b\n\n".utf8))
        #expect(resumed == [ServerSentEvent(data: "b", id: "1", retry: .milliseconds(250))])
    }
}
