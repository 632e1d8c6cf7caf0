import Foundation

extension MultipartFormat {
    /// The size of the blocks that files and streams are copied in.
    static let blockSize = 64 * 1024

    /// Writes the whole body to `sink`, reading files and streams in 64 KiB blocks.
    ///
    /// - Parameter isCancelled: polled between blocks; when it says `true` the write stops
    ///   with `CancellationError`.
    /// - Throws: ``MultipartEncodingFailure``, `CancellationError`, or what `sink` throws.
    static func write(
        _ parts: [MultipartFormBodyPart], boundary: String, isCancelled: () -> Bool = { false },
        to sink: (Data) throws -> Void
    ) throws {
        guard isValidBoundary(boundary) else { throw MultipartEncodingFailure.invalidBoundary(boundary) }
        for part in parts {
            if isCancelled() { throw CancellationError() }
            try sink(opening(of: part, boundary: boundary))
            switch part.provider {
            case .data(let data):
                try sink(data)
            case .file(let url):
                guard let size = regularFileSize(url), let stream = InputStream(url: url) else {
                    throw MultipartEncodingFailure.unreadableFile(url)
                }
                try copy(stream, expected: size, label: url.lastPathComponent, isCancelled: isCancelled, to: sink)
            case .inputStream(let box, let length):
                guard let stream = box.take(), stream.streamStatus == .notOpen else {
                    throw MultipartEncodingFailure.streamAlreadyRead
                }
                try copy(stream, expected: length, label: part.name, isCancelled: isCancelled, to: sink)
            }
            try sink(Data(crlf.utf8))
        }
        try sink(closing(boundary: boundary))
    }

    /// The body in memory.
    static func encode(
        _ parts: [MultipartFormBodyPart], boundary: String, isCancelled: () -> Bool = { false }
    ) throws -> Data {
        var body = Data()
        try write(parts, boundary: boundary, isCancelled: isCancelled) { body.append($0) }
        return body
    }

    /// The body written to a new file in `directory` (readable by the user only), which the
    /// caller must remove. Nothing is left behind when writing fails or is cancelled.
    static func writeToTemporaryFile(
        _ parts: [MultipartFormBodyPart], boundary: String, in directory: URL,
        isCancelled: () -> Bool = { false }
    ) throws -> URL {
        let (url, handle) = try TransferDirectory.createFile(prefix: "courier-multipart", in: directory)
        do {
            try write(parts, boundary: boundary, isCancelled: isCancelled) { try handle.write(contentsOf: $0) }
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        return url
    }

    private static func copy(
        _ stream: InputStream, expected: UInt64, label: String, isCancelled: () -> Bool,
        to sink: (Data) throws -> Void
    ) throws {
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: blockSize)
        var copied: UInt64 = 0
        while copied < expected {
            if isCancelled() { throw CancellationError() }
            let wanted = Int(min(UInt64(buffer.count), expected - copied))
            let count = stream.read(&buffer, maxLength: wanted)
            if count < 0 { throw MultipartEncodingFailure.readFailed(label) }
            if count == 0 { break }
            copied += UInt64(count)
            try sink(buffer.withUnsafeBytes { Data(bytes: $0.baseAddress!, count: count) })
        }
        // A stream (or a file that grew) with bytes left over breaks the announced length too.
        if copied == expected, stream.hasBytesAvailable {
            let extra = stream.read(&buffer, maxLength: 1)
            if extra > 0 { copied += UInt64(extra) }
        }
        if copied != expected {
            throw MultipartEncodingFailure.lengthMismatch(label, expected: expected, actual: copied)
        }
    }
}
