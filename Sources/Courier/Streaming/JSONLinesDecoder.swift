import Foundation

/// Reads a JSON Lines (NDJSON) body chunk by chunk, decoding every line into `Value`.
///
/// Lines end at LF; a CR before the LF is dropped; blank lines (empty or only spaces and tabs)
/// are skipped. The last line needs no line end: ``finish()`` decodes it.
///
/// ```swift
/// struct LogEntry: Decodable, Sendable { let level: String; let message: String }
///
/// var decoder = JSONLinesDecoder<LogEntry>()
/// for try await chunk in chunks {
///     for entry in try decoder.decode(chunk) { print(entry.message) }
/// }
/// if let last = try decoder.finish() { print(last.message) }
/// ```
public struct JSONLinesDecoder<Value: Decodable>: Sendable {
    private var splitter: LineSplitter
    private var lineNumber = 0
    private let makeDecoder: @Sendable () -> JSONDecoder

    /// The most bytes one line may hold, line end excluded.
    public var maximumLineLength: Int { splitter.maximumLineLength }

    /// Makes a decoder that refuses lines longer than `maximumLineLength` bytes and decodes each
    /// line with a `JSONDecoder` from `makeDecoder` (made once per chunk; the default is a plain
    /// `JSONDecoder()`).
    public init(
        maximumLineLength: Int = LineDecoder.defaultMaximumLineLength,
        decoder makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) {
        splitter = LineSplitter(maximumLineLength: maximumLineLength, crEndsLine: false)
        self.makeDecoder = makeDecoder
    }

    /// Reads `chunk` and returns the values of the lines it completes, in order.
    ///
    /// - Throws: ``StreamDecodingError`` `.lineTooLong` when a line passes the bound, or
    ///   `.invalidJSONLine` when a line is not the JSON of a `Value`.
    public mutating func decode<Chunk: Collection<UInt8>>(_ chunk: Chunk) throws -> [Value] {
        var values: [Value] = []
        let decoder = makeDecoder()
        var splitter = self.splitter
        self.splitter = LineSplitter(maximumLineLength: 0, crEndsLine: false)
        defer { self.splitter = splitter }
        let received = splitter.received + chunk.count
        try splitter.split(chunk) { line in
            if let value = try self.value(of: line, decoder: decoder, received: received) {
                values.append(value)
            }
        }
        return values
    }

    /// Ends the stream and decodes its last line when the stream did not end with a line end.
    ///
    /// - Throws: ``StreamDecodingError`` `.invalidJSONLine` when that line is not the JSON of a
    ///   `Value`.
    public mutating func finish() throws -> Value? {
        let received = splitter.received
        guard let line = splitter.finish() else { return nil }
        let decoder = makeDecoder()
        return try line.withUnsafeBufferPointer { try value(of: $0, decoder: decoder, received: received) }
    }

    private mutating func value(of line: UnsafeBufferPointer<UInt8>, decoder: JSONDecoder, received: Int) throws
        -> Value?
    {
        lineNumber += 1
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return nil }
        do {
            return try decoder.decode(Value.self, from: Data(line))
        } catch let error as DecodingError {
            throw StreamDecodingError(
                kind: .invalidJSONLine(line: lineNumber, reason: DecodingFailure.describe(error)), byteOffset: received)
        } catch {
            throw StreamDecodingError(
                kind: .invalidJSONLine(line: lineNumber, reason: "it is not JSON"), byteOffset: received)
        }
    }
}
