import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a ``ScriptedStreamTransport`` answers one connect with: a head, then body steps.
///
/// ```swift
/// let script = StreamScript(headers: ["Content-Type": "text/event-stream"])
///     .chunk("id: 1\ndata: a\n\n")
///     .chunk("id: 2\ndata: b\n\n")
///     .cut()  // the connection drops here
/// ```
public struct StreamScript: Sendable {
    /// One step of a scripted body.
    public enum Step: Sendable {
        /// A chunk of the body, handed over as one piece.
        case chunk(Data)
        /// Waits for the gate to open before the next step (a slow network, on the test's signal).
        case wait(Gate)
        /// The body ends with `error` (a dropped connection, say) instead of cleanly.
        case fail(any Error)
    }

    /// The status code of the head.
    public var statusCode: Int
    /// The head's header fields.
    public var headers: [String: String]
    /// The body, step by step; the body ends cleanly after the last unless it is a ``Step/fail(_:)``.
    public var steps: [Step]

    /// Makes a script whose head has `statusCode` and `headers`, with `steps` for its body.
    public init(statusCode: Int = 200, headers: [String: String] = [:], steps: [Step] = []) {
        self.statusCode = statusCode
        self.headers = headers
        self.steps = steps
    }

    /// The script with one more chunk of body.
    public func chunk(_ data: Data) -> StreamScript {
        appending(.chunk(data))
    }

    /// The script with one more chunk of body, the UTF-8 of `text`.
    public func chunk(_ text: String) -> StreamScript {
        appending(.chunk(Data(text.utf8)))
    }

    /// The script waiting for `gate` before its next step.
    public func wait(for gate: Gate) -> StreamScript {
        appending(.wait(gate))
    }

    /// The script whose body ends with `error`, as when the connection drops
    /// (`URLError(.networkConnectionLost)` by default).
    public func cut(with error: any Error = URLError(.networkConnectionLost)) -> StreamScript {
        appending(.fail(error))
    }

    /// The script cut after its first `byteCount` bytes of body: chunks past that point are
    /// shortened or dropped and the body ends with `URLError(.networkConnectionLost)`.
    public func cut(atByte byteCount: Int) -> StreamScript {
        var kept: [Step] = []
        var remaining = max(0, byteCount)
        for step in steps {
            guard case .chunk(let data) = step else {
                kept.append(step)
                continue
            }
            if data.count > remaining {
                if remaining > 0 { kept.append(.chunk(data.prefix(remaining))) }
                return StreamScript(statusCode: statusCode, headers: headers, steps: kept).cut()
            }
            remaining -= data.count
            kept.append(step)
        }
        return StreamScript(statusCode: statusCode, headers: headers, steps: kept).cut()
    }

    private func appending(_ step: Step) -> StreamScript {
        var script = self
        script.steps.append(step)
        return script
    }
}

/// A streaming transport that answers each connect from a script: the head at once, then the
/// body step by step, paced by the reader (it waits while the reader's buffer is full) and
/// stopped when the reader stops.
///
/// ```swift
/// let transport = ScriptedStreamTransport { request, connect in
///     connect == 1
///         ? StreamScript().chunk("id: 1\ndata: a\n\n").cut()
///         : StreamScript(statusCode: 401)
/// }
/// ```
public final class ScriptedStreamTransport: StreamingHTTPTransport {
    /// Chooses the script of one connect, counted from 1; throwing fails the connect before
    /// its head.
    public typealias Handler = @Sendable (_ request: TransportRequest, _ connect: Int) async throws -> StreamScript

    private let handler: Handler
    private let requests = LockIsolated<[URLRequest]>([])
    private let stopped = CallCounter()

    /// Makes a transport that answers every connect with `handler`'s script.
    public init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    /// The requests of every connect so far, in order.
    public var connects: [URLRequest] { requests.value }

    /// Counts the bodies whose reader stopped before the end (cancelled, loop ended, dropped,
    /// idle time-out): each one is a connection the transport closed.
    public var closedByReader: CallCounter { stopped }

    /// Sends the request and returns the whole scripted body as one `Response`; a scripted
    /// failure is thrown.
    public func send(_ request: TransportRequest) async throws -> Response {
        let streamed = try await stream(request, options: StreamOptions(bufferLimit: .max, idleTimeout: nil))
        var data = Data()
        for try await chunk in streamed.body { data.append(chunk) }
        return Response(
            statusCode: streamed.statusCode, data: data, request: request.urlRequest, response: streamed.response)
    }

    /// Answers with the head of the connect's script and plays its body as the reader reads.
    public func stream(_ request: TransportRequest, options: StreamOptions) async throws -> StreamedResponse {
        let number = requests.withValue {
            $0.append(request.urlRequest)
            return $0.count
        }
        let script = try await handler(request, number)
        try Task.checkCancellation()
        let url = request.urlRequest.url ?? URL(string: "http://127.0.0.1/")!
        guard
            let head = HTTPURLResponse(
                url: url, statusCode: script.statusCode, httpVersion: "HTTP/1.1", headerFields: script.headers)
        else { throw URLError(.badServerResponse) }
        let (body, producer) = ResponseBodyStream.makeStream(options: options, request: request.urlRequest)
        let player = Task {
            for step in script.steps {
                switch step {
                case .chunk(let data):
                    guard await producer.send(data) else { return }
                case .wait(let gate):
                    do { try await gate.wait() } catch { return }
                case .fail(let error):
                    producer.finish(throwing: error)
                    return
                }
            }
            producer.finish()
        }
        let stopped = self.stopped
        producer.onTermination {
            player.cancel()
            _ = stopped.increment()
        }
        return StreamedResponse(request: request.urlRequest, response: head, body: body)
    }
}
