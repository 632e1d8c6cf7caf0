import Foundation

extension ResponseBodyStream {
    /// The body read as a `text/event-stream`: its Server-Sent Events, parsed by a
    /// ``ServerSentEventParser`` (an event left unterminated at the end is not dispatched).
    ///
    /// ```swift
    /// for try await event in streamed.body.serverSentEvents() where event.type == "delta" {
    ///     print(event.data, terminator: "")
    /// }
    /// ```
    public func serverSentEvents(
        maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize
    ) -> ServerSentEventStream {
        ServerSentEventStream(body: self, maximumEventSize: maximumEventSize)
    }

    /// The body read as UTF-8 lines, by a ``LineDecoder`` (the last line needs no line end).
    public func lines(maximumLineLength: Int = LineDecoder.defaultMaximumLineLength) -> LineStream {
        LineStream(body: self, maximumLineLength: maximumLineLength)
    }

    /// The body read as JSON Lines, each line decoded into `type` by a ``JSONLinesDecoder``.
    public func jsonLines<Value: Decodable>(
        of type: Value.Type, maximumLineLength: Int = LineDecoder.defaultMaximumLineLength,
        decoder makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) -> JSONLinesStream<Value> {
        JSONLinesStream(body: self, maximumLineLength: maximumLineLength, makeDecoder: makeDecoder)
    }
}

/// A streamed body's Server-Sent Events, in order; see ``ResponseBodyStream/serverSentEvents(maximumEventSize:)``.
/// Ending the loop early, or cancelling it, closes the connection.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    /// One dispatched event.
    public typealias Element = ServerSentEvent

    let body: ResponseBodyStream
    let maximumEventSize: Int

    /// Reads the events one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var core: ChunkDecodingCore<ServerSentEventParser>

        /// The next event, or `nil` once the body ended cleanly.
        ///
        /// - Throws: what broke the body, or a ``StreamDecodingError`` when an event passed the bound.
        public mutating func next() async throws -> ServerSentEvent? { try await core.next() }
    }

    /// Starts reading the events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            core: ChunkDecodingCore(
                chunks: body.makeAsyncIterator(), decoder: ServerSentEventParser(maximumEventSize: maximumEventSize)))
    }
}

/// A streamed body's UTF-8 lines, in order; see ``ResponseBodyStream/lines(maximumLineLength:)``.
/// Ending the loop early, or cancelling it, closes the connection.
public struct LineStream: AsyncSequence, Sendable {
    /// One line, without its line end.
    public typealias Element = String

    let body: ResponseBodyStream
    let maximumLineLength: Int

    /// Reads the lines one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var core: ChunkDecodingCore<LineDecoder>

        /// The next line, or `nil` once the body ended cleanly.
        ///
        /// - Throws: what broke the body, or a ``StreamDecodingError`` when a line passed the bound.
        public mutating func next() async throws -> String? { try await core.next() }
    }

    /// Starts reading the lines.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            core: ChunkDecodingCore(
                chunks: body.makeAsyncIterator(), decoder: LineDecoder(maximumLineLength: maximumLineLength)))
    }
}

/// A streamed body's JSON Lines decoded into `Value`, in order; see
/// ``ResponseBodyStream/jsonLines(of:maximumLineLength:decoder:)``. Ending the loop early, or
/// cancelling it, closes the connection.
public struct JSONLinesStream<Value: Decodable>: AsyncSequence, Sendable {
    /// One decoded line.
    public typealias Element = Value

    let body: ResponseBodyStream
    let maximumLineLength: Int
    let makeDecoder: @Sendable () -> JSONDecoder

    /// Reads the values one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var core: ChunkDecodingCore<JSONLinesDecoder<Value>>

        /// The next value, or `nil` once the body ended cleanly.
        ///
        /// - Throws: what broke the body, or a ``StreamDecodingError`` when a line passed the
        ///   bound or is not the JSON of a `Value`.
        public mutating func next() async throws -> Value? { try await core.next() }
    }

    /// Starts reading the values.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            core: ChunkDecodingCore(
                chunks: body.makeAsyncIterator(),
                decoder: JSONLinesDecoder(maximumLineLength: maximumLineLength, decoder: makeDecoder)))
    }
}
