import Foundation

/// The hand-over between a transport that receives a streamed body and the task that reads it:
/// a bounded queue of chunks with back-pressure, cancellation both ways and an idle time-out.
///
/// The transport offers chunks as they arrive; once `limit` bytes wait unread, ``offer(_:)``
/// answers `false` and the transport pauses the transfer until `onDemand` runs (the reader took
/// the queue below half the limit). The reader's cancellation, or its loop ending, calls
/// `onTermination` once, which closes the connection. While the reader waits on an empty queue,
/// no byte arriving for `idleTimeout` fails the stream.
final class StreamBodyBuffer: Sendable {
    struct State {
        var chunks: [Data] = []
        var head = 0
        var buffered = 0
        /// Set once the transport ended the body: `nil` inside for a clean end.
        var end: (any Error)??
        /// The reader stopped (cancelled, or its loop ended): nothing more is kept.
        var terminated = false
        var reader: CheckedContinuation<Data?, any Error>?
        var paused = false
        var producers: [CheckedContinuation<Bool, Never>] = []
        var onDemand: (@Sendable () -> Void)?
        var onTermination: (@Sendable () -> Void)?
        var received = 0
        /// The last chunk's arrival or the reader's last call, whichever is later.
        var lastActivity = ContinuousClock.now
        /// The one idle timer, started by the reader's first wait, cancelled at the end.
        var idleTimer: Task<Void, Never>?
    }

    /// Bytes that may wait unread before the transfer is paused.
    let limit: Int
    let idleTimeout: Duration?
    /// What an idle time-out fails the stream with, given the bytes received so far.
    let idleError: @Sendable (Int) -> any Error
    // The lock box guards every mutable field of the hand-over.
    private let state = Locked(State())

    init(limit: Int, idleTimeout: Duration?, idleError: @escaping @Sendable (Int) -> any Error) {
        self.limit = max(1, limit)
        self.idleTimeout = idleTimeout
        self.idleError = idleError
    }

    /// Sets what resumes a paused transfer.
    func setOnDemand(_ body: @escaping @Sendable () -> Void) {
        state.withValue { $0.onDemand = body }
    }

    /// Sets what closes the connection when the reader stops; runs at once if it already has.
    func setOnTermination(_ body: @escaping @Sendable () -> Void) {
        let already = state.withValue { state -> Bool in
            if state.terminated { return true }
            state.onTermination = body
            return false
        }
        if already { body() }
    }

    /// Bytes received so far.
    var received: Int { state.withValue { $0.received } }

    /// Bytes handed over and not yet read.
    var unreadBytes: Int { state.withValue { $0.buffered } }

    /// Hands over `chunk`; `false` when the transport should pause until `onDemand` runs (or
    /// when the reader has stopped, in which case it should cancel).
    @discardableResult
    func offer(_ chunk: Data) -> Bool {
        guard !chunk.isEmpty else { return true }
        let (reader, accepted) = state.withValue { state -> (CheckedContinuation<Data?, any Error>?, Bool) in
            guard !state.terminated, state.end == nil else { return (nil, false) }
            state.received += chunk.count
            state.lastActivity = .now
            if let reader = state.reader {
                state.reader = nil
                return (reader, true)
            }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            if state.buffered >= limit {
                state.paused = true
                return (nil, false)
            }
            return (nil, true)
        }
        reader?.resume(returning: chunk)
        return accepted
    }

    /// Hands over `chunk` and waits while the queue is full; `false` when the reader stopped.
    func send(_ chunk: Data) async -> Bool {
        guard offer(chunk) else {
            return await withCheckedContinuation { continuation in
                let answer = state.withValue { state -> Bool? in
                    if state.terminated || state.end != nil { return false }
                    if !state.paused { return true }
                    state.producers.append(continuation)
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        }
        return true
    }

    /// Ends the body: cleanly with `nil`, else with `error`. The reader gets the chunks already
    /// queued first.
    func finish(throwing error: (any Error)? = nil) {
        let (reader, producers) = state.withValue {
            state -> (CheckedContinuation<Data?, any Error>?, [CheckedContinuation<Bool, Never>]) in
            guard state.end == nil, !state.terminated else { return (nil, []) }
            state.end = .some(error)
            state.idleTimer?.cancel()
            state.idleTimer = nil
            let reader = state.reader
            state.reader = nil
            defer { state.producers = [] }
            return (reader, state.producers)
        }
        for producer in producers { producer.resume(returning: false) }
        guard let reader else { return }
        if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
    }

    /// The reader stopped: drops what is queued and closes the connection, once.
    func terminate() {
        let (reader, producers, onTermination) = state.withValue {
            state -> (
                CheckedContinuation<Data?, any Error>?, [CheckedContinuation<Bool, Never>], (@Sendable () -> Void)?
            ) in
            guard !state.terminated else { return (nil, [], nil) }
            state.terminated = true
            state.idleTimer?.cancel()
            state.idleTimer = nil
            state.chunks = []
            state.head = 0
            state.buffered = 0
            let reader = state.reader
            state.reader = nil
            defer {
                state.producers = []
                state.onTermination = nil
                state.onDemand = nil
            }
            // A body that already ended has no connection left to close.
            return (reader, state.producers, state.end == nil ? state.onTermination : nil)
        }
        reader?.resume(throwing: CancellationError())
        for producer in producers { producer.resume(returning: false) }
        onTermination?()
    }

    /// The next chunk, `nil` at a clean end; waits for one, at most the idle time-out.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                enum Step {
                    case chunk(Data, resume: [CheckedContinuation<Bool, Never>], onDemand: (@Sendable () -> Void)?)
                    case end((any Error)?)
                    case cancelled
                    case wait
                }
                let step = state.withValue { state -> Step in
                    if state.terminated { return .cancelled }
                    state.lastActivity = .now
                    if state.head < state.chunks.count {
                        let chunk = state.chunks[state.head]
                        state.head += 1
                        state.buffered -= chunk.count
                        if state.head == state.chunks.count {
                            state.chunks.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        if state.paused, state.buffered <= limit / 2 {
                            state.paused = false
                            defer { state.producers = [] }
                            return .chunk(chunk, resume: state.producers, onDemand: state.onDemand)
                        }
                        return .chunk(chunk, resume: [], onDemand: nil)
                    }
                    if let end = state.end { return .end(end) }
                    state.reader = continuation
                    if state.idleTimer == nil, let idleTimeout {
                        state.idleTimer = Task { [weak self] in await self?.watchIdleness(idleTimeout) }
                    }
                    return .wait
                }
                switch step {
                case .chunk(let chunk, let producers, let onDemand):
                    continuation.resume(returning: chunk)
                    for producer in producers { producer.resume(returning: true) }
                    onDemand?()
                case .end(let error):
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: nil) }
                case .cancelled:
                    continuation.resume(throwing: CancellationError())
                case .wait:
                    break
                }
            }
        } onCancel: {
            terminate()
        }
    }

    /// Fails the stream once the reader has waited `idleTimeout` on an empty queue with no
    /// chunk arriving; ends with the body.
    private func watchIdleness(_ idleTimeout: Duration) async {
        while !Task.isCancelled {
            let deadline = state.withValue { $0.lastActivity } + idleTimeout
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
            } catch {
                return
            }
            enum Check {
                case done, again
                case fire(CheckedContinuation<Data?, any Error>, received: Int)
            }
            let check = state.withValue { state -> Check in
                if state.terminated || state.end != nil { return .done }
                guard let reader = state.reader, ContinuousClock.now - state.lastActivity >= idleTimeout else {
                    return .again
                }
                state.reader = nil
                return .fire(reader, received: state.received)
            }
            switch check {
            case .done: return
            case .again: continue
            case .fire(let reader, let received):
                let error = idleError(received)
                finish(throwing: error)
                terminateConnection()
                reader.resume(throwing: error)
                return
            }
        }
    }

    /// Closes the connection after an idle time-out, keeping nothing more.
    private func terminateConnection() {
        let onTermination = state.withValue { state -> (@Sendable () -> Void)? in
            state.terminated = true
            defer { state.onTermination = nil }
            return state.onTermination
        }
        onTermination?()
    }
}
