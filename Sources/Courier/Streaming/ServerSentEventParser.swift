/// Reads a `text/event-stream` body chunk by chunk and dispatches its events exactly as the
/// WHATWG HTML standard's "Interpreting an event stream" (§9.2.6) does.
///
/// Feed it the chunks as they arrive, of any size down to one byte; it keeps what an unfinished
/// line or event needs across chunks, so the events are the same however the body was cut:
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in chunks {
///     for event in try parser.parse(chunk) {
///         print(event.type, event.data)
///     }
/// }
/// parser.finish()  // an event the stream left unterminated is not dispatched
/// ```
///
/// The rules it follows: lines end at CR, LF or CRLF, mixed freely; one byte order mark at the
/// start is ignored; the body is UTF-8 whatever the `charset` of its content type says (invalid
/// bytes read as U+FFFD); a line that starts with a colon is a comment; a field's value starts
/// after the first colon, less one space if one follows it; `data` lines are joined with LF;
/// `event` sets the type; `id` sets the last event ID unless its value contains NUL; `retry`
/// sets the reconnection time when its value is ASCII digits only; other fields are ignored; a
/// blank line dispatches the event, unless it has no data (a block of `id` alone still sets
/// ``lastEventID``).
///
/// Memory is bounded: an event may hold at most `maximumEventSize` bytes of data, type and id
/// together, and one line (a field or a comment) at most ``lineAllowance`` bytes more; past
/// either, the parser throws ``StreamDecodingError`` of kind `.eventTooLarge`, at the same line
/// however the stream was cut. After an error the parser is spent; a new stream needs a new
/// parser.
public struct ServerSentEventParser: Sendable {
    /// The default bound on one event: 2 MiB, so that an event with 1 MiB of data passes with
    /// room to spare.
    public static let defaultMaximumEventSize = 2 * 1024 * 1024

    /// The room a line has beyond ``maximumEventSize`` for its field name, colon and space.
    public static let lineAllowance = 64

    /// The most bytes one event's data, type and id may hold together.
    public let maximumEventSize: Int
    /// The stream's last event ID: the `id` in force at the latest blank line, dispatched or not.
    /// A reconnect sends it as `Last-Event-ID`; `""` means none.
    public private(set) var lastEventID = ""
    /// The reconnection time of the stream's latest valid `retry` field, or `nil` when it sent
    /// none.
    public private(set) var reconnectionTime: Duration?

    private var splitter: LineSplitter
    private var atStart = true
    private var data = ""
    private var dataBytes = 0
    private var eventType = ""
    private var idBuffer = ""
    private var sawField = false
    private var received = 0

    /// Makes a parser for one stream that refuses events larger than `maximumEventSize` bytes.
    public init(maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize) {
        self.maximumEventSize = max(1, maximumEventSize)
        self.splitter = LineSplitter(
            maximumLineLength: self.maximumEventSize.addingReportingOverflow(Self.lineAllowance).overflow
                ? .max : self.maximumEventSize + Self.lineAllowance,
            crEndsLine: true)
    }

    /// Reads `chunk` and returns the events it completes, in order.
    ///
    /// - Throws: ``StreamDecodingError`` `.eventTooLarge` when an event passes the bound.
    public mutating func parse<Chunk: Collection<UInt8>>(_ chunk: Chunk) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        try parse(chunk) { events.append($0) }
        return events
    }

    /// Reads `chunk` and calls `onEvent` with every event it completes, in order, without
    /// collecting them.
    ///
    /// - Throws: ``StreamDecodingError`` `.eventTooLarge` when an event passes the bound, or what
    ///   `onEvent` throws.
    public mutating func parse<Chunk: Collection<UInt8>>(
        _ chunk: Chunk, onEvent: (ServerSentEvent) throws -> Void
    ) throws {
        // The splitter is moved out while it calls back into `self` (no overlapping access, and
        // no copy of its buffer).
        received += chunk.count
        var splitter = self.splitter
        self.splitter = LineSplitter(maximumLineLength: 0, crEndsLine: true)
        defer { self.splitter = splitter }
        do {
            try splitter.split(chunk) { line in try self.read(line, onEvent: onEvent) }
        } catch let error as StreamDecodingError {
            if case .lineTooLong = error.kind {
                throw StreamDecodingError(kind: .eventTooLarge(limit: maximumEventSize), byteOffset: error.byteOffset)
            }
            throw error
        }
    }

    /// Ends the connection's body: an event not yet terminated by a blank line is discarded, as
    /// the standard says (an `id` in it does not count). Returns whether anything was discarded.
    ///
    /// The parser can then read the body of a reconnect to the same stream: it keeps
    /// ``lastEventID`` and ``reconnectionTime`` and again ignores one leading byte order mark.
    @discardableResult
    public mutating func finish() -> Bool {
        let discarded = splitter.finish() != nil || sawField
        data = ""
        dataBytes = 0
        eventType = ""
        idBuffer = lastEventID
        sawField = false
        atStart = true
        return discarded
    }

    private mutating func read(_ bytes: UnsafeBufferPointer<UInt8>, onEvent: (ServerSentEvent) throws -> Void)
        throws
    {
        var line = bytes
        if atStart {
            atStart = false
            if line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
                line = UnsafeBufferPointer(rebasing: line[3...])
            }
        }
        if line.isEmpty {
            try dispatch(onEvent)
            return
        }
        if line[0] == UInt8(ascii: ":") { return }
        sawField = true
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = UnsafeBufferPointer(rebasing: line[..<(colon ?? line.count)])
        var value = UnsafeBufferPointer(rebasing: line[(colon.map { $0 + 1 } ?? line.count)...])
        if value.first == UInt8(ascii: " ") {
            value = UnsafeBufferPointer(rebasing: value[1...])
        }
        switch Field(name) {
        case .event:
            eventType = String(decoding: value, as: UTF8.self)
        case .data:
            data += String(decoding: value, as: UTF8.self)
            data += "\n"
            dataBytes += value.count + 1
        case .id:
            if !value.contains(0) {
                idBuffer = String(decoding: value, as: UTF8.self)
            }
        case .retry:
            if let milliseconds = Self.digits(value) {
                reconnectionTime = .milliseconds(milliseconds)
            }
        case nil:
            break
        }
        try checkBound()
    }

    private mutating func dispatch(_ onEvent: (ServerSentEvent) throws -> Void) throws {
        lastEventID = idBuffer
        sawField = false
        guard dataBytes > 0 else {
            data = ""
            eventType = ""
            return
        }
        var text = data
        text.removeLast()
        let event = ServerSentEvent(
            type: eventType.isEmpty ? "message" : eventType, data: text, id: lastEventID, retry: reconnectionTime)
        data = ""
        dataBytes = 0
        eventType = ""
        try onEvent(event)
    }

    private func checkBound() throws {
        let held = dataBytes + eventType.utf8.count + idBuffer.utf8.count
        if held > maximumEventSize {
            throw StreamDecodingError(kind: .eventTooLarge(limit: maximumEventSize), byteOffset: received)
        }
    }

    /// A `retry` value of ASCII digits only, read in base ten and saturated at `Int64.max`
    /// milliseconds; `nil` for anything else, the empty value included.
    static func digits(_ value: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !value.isEmpty else { return nil }
        var result: Int64 = 0
        for byte in value {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            result = overflow1 || overflow2 ? .max : sum
        }
        return result
    }

    /// The fields the standard gives a meaning; names are compared byte for byte (case matters).
    private enum Field {
        case event, data, id, retry

        init?(_ name: UnsafeBufferPointer<UInt8>) {
            if name.elementsEqual("data".utf8) {
                self = .data
            } else if name.elementsEqual("event".utf8) {
                self = .event
            } else if name.elementsEqual("id".utf8) {
                self = .id
            } else if name.elementsEqual("retry".utf8) {
                self = .retry
            } else {
                return nil
            }
        }
    }
}
