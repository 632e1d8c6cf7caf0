/// Reads a streamed text body chunk by chunk as UTF-8 lines.
///
/// A line ends at LF, CR or CRLF (a CRLF split across two chunks is one line end); the line end
/// is not part of the line; invalid UTF-8 reads as U+FFFD, and a character split across chunks is
/// read whole. The last line needs no line end: ``finish()`` returns it.
///
/// ```swift
/// var decoder = LineDecoder()
/// for try await chunk in chunks {
///     for line in try decoder.decode(chunk) { print(line) }
/// }
/// if let last = decoder.finish() { print(last) }
/// ```
public struct LineDecoder: Sendable {
    /// The default bound on one line: 1 MiB.
    public static let defaultMaximumLineLength = 1024 * 1024

    private var splitter: LineSplitter

    /// The most bytes one line may hold, line end excluded.
    public var maximumLineLength: Int { splitter.maximumLineLength }

    /// Makes a decoder that refuses lines longer than `maximumLineLength` bytes.
    public init(maximumLineLength: Int = LineDecoder.defaultMaximumLineLength) {
        splitter = LineSplitter(maximumLineLength: maximumLineLength, crEndsLine: true)
    }

    /// Reads `chunk` and returns the lines it completes, in order.
    ///
    /// - Throws: ``StreamDecodingError`` `.lineTooLong` when a line passes the bound.
    public mutating func decode<Chunk: Collection<UInt8>>(_ chunk: Chunk) throws -> [String] {
        var lines: [String] = []
        try splitter.split(chunk) { lines.append(String(decoding: $0, as: UTF8.self)) }
        return lines
    }

    /// Ends the stream and returns its last line when the stream did not end with a line end.
    public mutating func finish() -> String? {
        splitter.finish().map { String(decoding: $0, as: UTF8.self) }
    }
}
