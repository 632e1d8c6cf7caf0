/// One event of a `text/event-stream` body, as the WHATWG HTML standard dispatches it.
///
/// ```swift
/// for event in try parser.parse(chunk) where event.type == "message" {
///     print(event.data)
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the block's `event` field, or `"message"` when it had none.
    public var type: String
    /// The block's `data` lines joined with LF (U+000A), without a final LF.
    public var data: String
    /// The last event ID in force when the event was dispatched: the latest `id` field of the
    /// stream so far (it carries over to later events), `""` when none was sent or the last one
    /// was empty. A reconnect sends it as `Last-Event-ID`.
    public var id: String
    /// The reconnection time the stream asked for in its latest valid `retry` field so far, or
    /// `nil` when it never sent one.
    public var retry: Duration?

    /// Makes an event; `type` defaults to `"message"`, as for a block without an `event` field.
    public init(type: String = "message", data: String, id: String = "", retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}
