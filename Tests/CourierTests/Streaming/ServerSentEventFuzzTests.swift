import CourierTesting
import Testing

@testable import Courier

/// Seeded random event streams: the parser never crashes, reads the same events however the
/// stream is cut, and agrees with a second reading of the standard written the plain way
/// (decode everything, then split), which shares no code with it.
@Suite("Server-Sent Events parser fuzz")
struct ServerSentEventFuzzTests {
    static let pieces: [[UInt8]] =
        [
            "data", "event", "id", "retry", "foo", ":", ": ", " ", "\r", "\n", "\r\n", "\n\n", "\u{FEFF}", "é", "😀",
            "\u{0}", "1", "42", "x", "message",
        ].map { Array($0.utf8) } + [[0xFF], [0xE2, 0x82], [0xEF, 0xBB], [0xC3], [0x80]]

    private func randomStream(using random: inout SeededRandomNumberGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        if Bool.random(using: &random) { bytes += [0xEF, 0xBB, 0xBF] }
        for _ in 0..<Int.random(in: 0...60, using: &random) {
            bytes += Self.pieces.randomElement(using: &random)!
        }
        return bytes
    }

    @Test("2,000 random streams: same result for every chunking, and the plain reading agrees")
    func randomStreams() {
        var random = SeededRandomNumberGenerator(seed: 0x5EE)
        for round in 0..<2_000 {
            let bytes = randomStream(using: &random)
            let parsed = ParsedEventStream.parse(bytes)
            let reference = PlainEventStreamReading(bytes)
            #expect(parsed.error == nil)
            #expect(parsed.events == reference.events, "round \(round): \(bytes)")
            #expect(parsed.lastEventID == reference.lastEventID, "round \(round): \(bytes)")
            #expect(parsed.reconnectionTime == reference.reconnectionTime, "round \(round): \(bytes)")
        }
    }

    @Test("500 random streams under a small bound: the same events and error for every chunking, none too large")
    func randomStreamsUnderBound() {
        var random = SeededRandomNumberGenerator(seed: 0xB0B)
        var breaches = 0
        for _ in 0..<500 {
            let bytes = randomStream(using: &random)
            let parsed = ParsedEventStream.parse(bytes, maximumEventSize: 24)
            let plain = PlainEventStreamReading(bytes).events
            #expect(parsed.events.allSatisfy { $0.data.utf8.count < 24 })
            if let error = parsed.error {
                breaches += 1
                #expect(error.kind == .eventTooLarge(limit: 24))
                #expect(Array(plain.prefix(parsed.events.count)) == parsed.events)
            } else {
                #expect(parsed.events == plain)
            }
        }
        #expect(breaches > 0, "the bound was reached by some streams")
    }

    @Test("Random bytes of every value never crash the parser")
    func randomBytes() {
        var random = SeededRandomNumberGenerator(seed: 0xBADB17E5)
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            let parsed = ParsedEventStream.parse(bytes)
            #expect(parsed.events == PlainEventStreamReading(bytes).events)
        }
    }
}

/// The standard's algorithm read the plain way: the whole body decoded as UTF-8 first (one
/// leading BOM dropped), split into lines on scalars, fields handled as §9.2.6 lists them.
struct PlainEventStreamReading {
    var events: [ServerSentEvent] = []
    var lastEventID = ""
    var reconnectionTime: Duration?

    init(_ bytes: [UInt8]) {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.unicodeScalars.first == "\u{FEFF}" {
            text = String(text.unicodeScalars.dropFirst())
        }
        var lines: [String] = []
        var line = String.UnicodeScalarView()
        var previousCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" && previousCR {
                previousCR = false
                continue
            }
            previousCR = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                lines.append(String(line))
                line = String.UnicodeScalarView()
            } else {
                line.append(scalar)
            }
        }
        // What follows the last line end is discarded with the unfinished event.
        var data = ""
        var type = ""
        var idBuffer = ""
        for line in lines {
            if line.isEmpty {
                lastEventID = idBuffer
                if !data.isEmpty {
                    data.removeLast()
                    events.append(
                        ServerSentEvent(
                            type: type.isEmpty ? "message" : type, data: data, id: lastEventID, retry: reconnectionTime)
                    )
                }
                data = ""
                type = ""
                continue
            }
            if line.hasPrefix(":") { continue }
            var field = line
            var value = ""
            if let colon = line.firstIndex(of: ":") {
                field = String(line[..<colon])
                value = String(line[line.index(after: colon)...])
                if value.hasPrefix(" ") { value.removeFirst() }
            }
            switch field {
            case "event": type = value
            case "data": data += value + "\n"
            case "id" where !value.unicodeScalars.contains("\u{0}"): idBuffer = value
            case "retry" where !value.isEmpty && value.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }):
                reconnectionTime = .milliseconds(Int64(value) ?? .max)
            default: break
            }
        }
    }
}
