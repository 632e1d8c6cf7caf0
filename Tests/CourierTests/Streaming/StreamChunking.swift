import CourierTesting
import Testing

@testable import Courier

/// Cuts a byte string into chunks the way a network might: whole, one byte at a time, or at
/// seeded random places.
enum StreamChunking {
    /// The chunkings every parser test reads its input through: whole, byte by byte, and 20
    /// seeded random cuts (chunks of 1 to 7 bytes, then of 1 to 64); a body over 64 KiB is cut
    /// three times at random into chunks of up to 16 KiB instead.
    static func all(_ bytes: [UInt8], seed: UInt64 = 34) -> [[[UInt8]]] {
        var random = SeededRandomNumberGenerator(seed: seed)
        var result = [[bytes], bytes.map { [$0] }]
        if bytes.count > 64 * 1024 {
            // A large body: one byte at a time, plus a few network-sized cuts.
            return result + (0..<3).map { _ in cut(bytes, maxChunk: 16 * 1024, using: &random) }
        }
        for round in 0..<20 {
            result.append(cut(bytes, maxChunk: round < 10 ? 7 : 64, using: &random))
        }
        return result
    }

    /// `bytes` in consecutive chunks of 1 to `maxChunk` bytes.
    static func cut(_ bytes: [UInt8], maxChunk: Int, using random: inout SeededRandomNumberGenerator) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...max(1, maxChunk), using: &random))
            chunks.append(Array(bytes[start..<end]))
            start = end
        }
        return chunks
    }
}

/// What a parser made of a whole stream: its events, its state at the end, and its error.
struct ParsedEventStream: Equatable {
    var events: [ServerSentEvent] = []
    var lastEventID = ""
    var reconnectionTime: Duration?
    var error: StreamDecodingError?
    var discardedAtEnd = false

    /// Feeds `chunks` to a new parser, then ends the stream; the events dispatched before an
    /// error are kept.
    init(_ chunks: [[UInt8]], maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize) {
        var parser = ServerSentEventParser(maximumEventSize: maximumEventSize)
        do {
            for chunk in chunks {
                try parser.parse(chunk) { events.append($0) }
            }
            discardedAtEnd = parser.finish()
        } catch {
            self.error = error as? StreamDecodingError
        }
        lastEventID = parser.lastEventID
        reconnectionTime = parser.reconnectionTime
    }

    /// Parses `text` through every chunking and checks they all agree; returns the result.
    static func parse(
        _ bytes: [UInt8], maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ParsedEventStream {
        let chunkings = StreamChunking.all(bytes)
        let whole = ParsedEventStream(chunkings[0], maximumEventSize: maximumEventSize)
        for chunks in chunkings.dropFirst() {
            let parsed = ParsedEventStream(chunks, maximumEventSize: maximumEventSize)
            #expect(
                parsed.events == whole.events && parsed.lastEventID == whole.lastEventID
                    && parsed.reconnectionTime == whole.reconnectionTime && parsed.error?.kind == whole.error?.kind,
                "chunked as \(chunks.map(\.count))", sourceLocation: sourceLocation)
        }
        return whole
    }

    static func parse(
        _ text: String, maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ParsedEventStream {
        parse(Array(text.utf8), maximumEventSize: maximumEventSize, sourceLocation: sourceLocation)
    }
}
