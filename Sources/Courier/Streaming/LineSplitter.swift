/// Cuts a byte stream that arrives in chunks of any size into lines, as the WHATWG event-stream
/// grammar and JSON Lines read them: a line ends at CR, LF or CRLF, and a CRLF split across two
/// chunks is one line end.
///
/// A line is handed over as raw bytes, so a multibyte UTF-8 character split across chunks is
/// whole by the time it is decoded (CR and LF never occur inside a multibyte sequence). The bytes
/// held for an unfinished line are bounded by `maximumLineLength`.
struct LineSplitter: Sendable {
    /// The most bytes an unfinished or finished line may hold, line end excluded.
    let maximumLineLength: Int
    /// Whether CR alone ends a line (the event-stream grammar) or only LF does (JSON Lines,
    /// where a CR before the LF is dropped).
    let crEndsLine: Bool
    /// The bytes of the line not yet ended.
    private(set) var pending: [UInt8] = []
    /// The previous chunk ended with a CR: an LF that opens this chunk belongs to it.
    private var afterCR = false
    /// Bytes handed to the splitter so far, line ends included.
    private(set) var received = 0

    init(maximumLineLength: Int, crEndsLine: Bool) {
        self.maximumLineLength = max(0, maximumLineLength)
        self.crEndsLine = crEndsLine
    }

    /// Splits `chunk`, calling `onLine` with every line it completes, in order.
    ///
    /// - Throws: ``StreamDecodingError`` `.lineTooLong` when a line passes the bound, or what
    ///   `onLine` throws.
    mutating func split(
        _ chunk: UnsafeBufferPointer<UInt8>, onLine: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        var start = 0
        var index = 0
        let count = chunk.count
        received += count
        if afterCR, count > 0 {
            afterCR = false
            if chunk[0] == 0x0A {
                start = 1
                index = 1
            }
        }
        while index < count {
            let byte = chunk[index]
            if byte == 0x0A || (byte == 0x0D && crEndsLine) {
                try emit(UnsafeBufferPointer(rebasing: chunk[start..<index]), onLine: onLine)
                if byte == 0x0D {
                    if index + 1 < count {
                        if chunk[index + 1] == 0x0A {
                            index += 1
                        }
                    } else {
                        afterCR = true
                    }
                }
                index += 1
                start = index
            } else {
                index += 1
            }
        }
        if start < count {
            let tail = count - start
            guard pending.count + tail <= maximumLineLength else {
                throw StreamDecodingError(
                    kind: .lineTooLong(limit: maximumLineLength), byteOffset: received)
            }
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<count]))
        }
    }

    /// The unterminated last line, if the stream ended in one; the splitter is empty afterwards.
    mutating func finish() -> [UInt8]? {
        afterCR = false
        guard !pending.isEmpty else { return nil }
        defer { pending = [] }
        return pending
    }

    private mutating func emit(
        _ piece: UnsafeBufferPointer<UInt8>, onLine: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        var piece = piece
        if !crEndsLine, piece.last == 0x0D || (piece.isEmpty && pending.last == 0x0D) {
            // JSON Lines: a CRLF line end; the CR is not part of the line.
            if piece.isEmpty {
                pending.removeLast()
            } else {
                piece = UnsafeBufferPointer(rebasing: piece[..<(piece.count - 1)])
            }
        }
        if pending.isEmpty {
            guard piece.count <= maximumLineLength else {
                throw StreamDecodingError(
                    kind: .lineTooLong(limit: maximumLineLength), byteOffset: received)
            }
            try onLine(piece)
        } else {
            guard pending.count + piece.count <= maximumLineLength else {
                throw StreamDecodingError(
                    kind: .lineTooLong(limit: maximumLineLength), byteOffset: received)
            }
            pending.append(contentsOf: piece)
            let line = pending
            pending.removeAll(keepingCapacity: true)
            try line.withUnsafeBufferPointer { try onLine($0) }
        }
    }
}

extension LineSplitter {
    /// Splits a chunk of any byte collection (`[UInt8]`, `Data`, a slice).
    mutating func split<Chunk: Collection<UInt8>>(
        _ chunk: Chunk, onLine: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        let done: Void? = try chunk.withContiguousStorageIfAvailable { try split($0, onLine: onLine) }
        if done == nil {
            try Array(chunk).withUnsafeBufferPointer { try split($0, onLine: onLine) }
        }
    }
}
