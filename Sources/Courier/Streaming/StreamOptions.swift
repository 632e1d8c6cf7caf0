/// How a streamed response is received.
///
/// ```swift
/// let options = StreamOptions(bufferLimit: 64 * 1024, idleTimeout: .seconds(30))
/// ```
public struct StreamOptions: Sendable, Hashable {
    /// The default buffer bound: 256 KiB.
    public static let defaultBufferLimit = 256 * 1024

    /// The most body bytes held unread before the transfer is paused (it resumes once the
    /// reader has taken them down to half).
    public var bufferLimit: Int
    /// How long the reader may wait for the next chunk before the stream fails with a
    /// ``StreamIdleTimeout`` and the connection is closed; `nil` waits for ever. Any byte
    /// counts as activity, so a server's heartbeat comments keep a quiet stream open. Separate
    /// from the request's total time-out.
    public var idleTimeout: Duration?

    /// Makes options; by default 256 KiB of buffer and a 60-second idle time-out.
    public init(bufferLimit: Int = StreamOptions.defaultBufferLimit, idleTimeout: Duration? = .seconds(60)) {
        self.bufferLimit = max(1, bufferLimit)
        self.idleTimeout = idleTimeout.map { max($0, .zero) }
    }
}
