import Foundation

/// A parser of streamed chunks: what the typed views of a ``ResponseBodyStream`` run.
protocol ChunkDecoder: Sendable {
    associatedtype Output
    /// The outputs `chunk` completes, in order.
    mutating func decode(_ chunk: Data) throws -> [Output]
    /// The outputs the end of the body completes.
    mutating func finishBody() throws -> [Output]
}

extension ServerSentEventParser: ChunkDecoder {
    mutating func decode(_ chunk: Data) throws -> [ServerSentEvent] { try parse(chunk) }
    mutating func finishBody() throws -> [ServerSentEvent] {
        finish()
        return []
    }
}

extension LineDecoder: ChunkDecoder {
    mutating func finishBody() throws -> [String] { finish().map { [$0] } ?? [] }
}

extension JSONLinesDecoder: ChunkDecoder {
    mutating func finishBody() throws -> [Value] { try finish().map { [$0] } ?? [] }
}

/// Reads a body's chunks through a decoder and hands its outputs over one at a time.
struct ChunkDecodingCore<Decoder: ChunkDecoder> {
    var chunks: ResponseBodyStream.AsyncIterator
    var decoder: Decoder
    var ready: [Decoder.Output] = []
    var index = 0
    var ended = false

    mutating func next() async throws -> Decoder.Output? {
        while true {
            if index < ready.count {
                defer { index += 1 }
                return ready[index]
            }
            if ended { return nil }
            ready.removeAll(keepingCapacity: true)
            index = 0
            if let chunk = try await chunks.next() {
                ready = try decoder.decode(chunk)
            } else {
                ended = true
                ready = try decoder.finishBody()
            }
        }
    }
}
