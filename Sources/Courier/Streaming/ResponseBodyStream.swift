import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A streamed response body: its chunks, in order, as they arrive.
///
/// The transfer is paused while the chunks not yet read reach the transport's buffer bound, so a
/// reader slower than the network holds memory down rather than letting it grow. Cancelling the
/// reading task closes the connection, and so does ending the loop early or dropping the body
/// unread. Read it once: a second loop over the same body ends at once.
///
/// ```swift
/// let streamed = try await transport.stream(request, options: StreamOptions())
/// for try await chunk in streamed.body {
///     try handle.write(contentsOf: chunk)
/// }
/// ```
public struct ResponseBodyStream: AsyncSequence, Sendable {
    /// One chunk of the body, as the transport received it.
    public typealias Element = Data

    final class Owner: Sendable {
        let buffer: StreamBodyBuffer
        init(_ buffer: StreamBodyBuffer) { self.buffer = buffer }
        deinit { buffer.terminate() }
    }

    let owner: Owner

    init(buffer: StreamBodyBuffer) {
        owner = Owner(buffer)
    }

    /// Reads the body's chunks; dropping it (a loop that ends early) closes the connection.
    public struct AsyncIterator: AsyncIteratorProtocol {
        final class Handle {
            let owner: Owner
            init(_ owner: Owner) { self.owner = owner }
            deinit { owner.buffer.terminate() }
        }

        let handle: Handle

        /// The next chunk, or `nil` once the body ended cleanly.
        ///
        /// - Throws: what broke the stream (the transport's error, a ``StreamIdleTimeout``), or
        ///   `CancellationError` when the reading task was cancelled.
        public mutating func next() async throws -> Data? {
            try await handle.owner.buffer.next()
        }
    }

    /// Starts reading the body.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(handle: AsyncIterator.Handle(owner))
    }

    /// How many bytes of the body have arrived so far, read or not.
    public var receivedBytes: Int { owner.buffer.received }

    /// Makes a body and the producer that feeds it, for a transport of your own or a test.
    ///
    /// - Parameters:
    ///   - options: the buffer bound and the idle time-out.
    ///   - request: the request the body answers, named by an idle time-out's error.
    public static func makeStream(options: StreamOptions = StreamOptions(), request: URLRequest) -> (
        body: ResponseBodyStream, producer: Producer
    ) {
        let summary = StreamIdleTimeout.RequestName(request)
        let idleTimeout = options.idleTimeout
        let buffer = StreamBodyBuffer(limit: options.bufferLimit, idleTimeout: idleTimeout) { received in
            StreamIdleTimeout(request: summary.text, idleTimeout: idleTimeout ?? .zero, receivedBytes: received)
        }
        return (ResponseBodyStream(buffer: buffer), Producer(buffer: buffer))
    }

    /// The transport's side of a ``ResponseBodyStream``: hands chunks over, pauses when told to,
    /// ends the body, and learns when the reader stopped.
    public struct Producer: Sendable {
        let buffer: StreamBodyBuffer

        /// Hands `chunk` over without waiting. `false` means pause the transfer until the
        /// closure given to ``onDemand(_:)`` runs, or, when the reader has stopped, stop.
        @discardableResult
        public func yield(_ chunk: Data) -> Bool { buffer.offer(chunk) }

        /// Hands `chunk` over, waiting while the buffer is full; `false` when the reader has
        /// stopped and nothing more will be read.
        public func send(_ chunk: Data) async -> Bool { await buffer.send(chunk) }

        /// Ends the body: cleanly when `error` is `nil`, else with `error` once the reader has
        /// the chunks already handed over.
        public func finish(throwing error: (any Error)? = nil) { buffer.finish(throwing: error) }

        /// Sets what resumes a paused transfer: it runs when the reader has taken the buffer
        /// down to half its bound.
        public func onDemand(_ resume: @escaping @Sendable () -> Void) { buffer.setOnDemand(resume) }

        /// Sets what closes the connection when the reader stops before the end (cancelled,
        /// its loop ended, the body dropped, or an idle time-out); runs at once if it already
        /// stopped.
        public func onTermination(_ close: @escaping @Sendable () -> Void) { buffer.setOnTermination(close) }
    }
}
