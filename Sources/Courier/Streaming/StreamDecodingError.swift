/// A streamed body that could not be read as lines, Server-Sent Events or JSON Lines.
///
/// It says what went wrong and after how many bytes of the stream; it never quotes the stream's
/// content, which may carry secrets.
///
/// ```swift
/// do {
///     for event in try parser.parse(chunk) { handle(event) }
/// } catch let error as StreamDecodingError {
///     print(error)  // "the stream's event passed the bound of 1048576 bytes after 2097152 bytes"
/// }
/// ```
public struct StreamDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the stream broke.
    public enum Kind: Sendable, Equatable {
        /// A Server-Sent Event held more bytes than the parser's bound allows (its data, type,
        /// id and the field line being read together).
        case eventTooLarge(limit: Int)
        /// A line held more bytes than the bound allows, line end excluded.
        case lineTooLong(limit: Int)
        /// Line `line` (counted from 1, blank lines included) of a JSON Lines stream is not the
        /// JSON of the expected type; `reason` says what was expected where, not what was sent.
        case invalidJSONLine(line: Int, reason: String)
    }

    /// What the stream broke.
    public let kind: Kind
    /// How many bytes of the stream had arrived when it happened.
    public let byteOffset: Int

    /// Makes an error for a stream that broke `kind` after `byteOffset` bytes.
    public init(kind: Kind, byteOffset: Int) {
        self.kind = kind
        self.byteOffset = byteOffset
    }

    /// What went wrong, in words, without the stream's content.
    public var description: String {
        switch kind {
        case .eventTooLarge(let limit):
            "the stream's event passed the bound of \(limit) bytes after \(byteOffset) bytes"
        case .lineTooLong(let limit):
            "the stream's line passed the bound of \(limit) bytes after \(byteOffset) bytes"
        case .invalidJSONLine(let line, let reason):
            "line \(line) of the JSON Lines stream is not valid (\(reason)) after \(byteOffset) bytes"
        }
    }
}
