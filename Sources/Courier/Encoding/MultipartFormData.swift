import Foundation

/// Writes `multipart/form-data` bodies (RFC 7578) from ``MultipartFormBodyPart``s.
///
/// Small bodies are assembled in memory; bodies whose size reaches
/// ``encodingMemoryThreshold`` are written to a temporary file and uploaded from disk, so a
/// large upload never sits in memory whole.
enum MultipartFormData {
    /// Bodies of this many bytes or more go through a temporary file (10 MiB, as Alamofire).
    static let encodingMemoryThreshold: UInt64 = 10 * 1024 * 1024

    static let crlf = "\r\n"

    static func randomBoundary() -> String {
        "courier.boundary.\(UInt64.random(in: .min ... .max).hexString)\(UInt64.random(in: .min ... .max).hexString)"
    }

    static func contentType(boundary: String) -> String {
        "multipart/form-data; boundary=\(boundary)"
    }

    /// The boundary in a `multipart/form-data` content type, if there is one.
    static func boundary(fromContentType contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.trimmingCharacters(in: .whitespaces)
            if pair.lowercased().hasPrefix("boundary=") {
                return String(pair.dropFirst("boundary=".count)).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    /// The headers of one part. Quotes, backslashes and line breaks in names are escaped so
    /// that a field or file name can never end the header early.
    static func headers(for part: MultipartFormBodyPart) -> String {
        var disposition = "Content-Disposition: form-data; name=\"\(escape(part.name))\""
        if let fileName = part.fileName {
            disposition += "; filename=\"\(escape(fileName))\""
        }
        var headers = disposition + crlf
        if let mimeType = part.mimeType {
            headers += "Content-Type: \(mimeType.filter { $0 != "\r" && $0 != "\n" })" + crlf
        }
        return headers + crlf
    }

    /// Escapes a name for a quoted `Content-Disposition` parameter: `"` and `\` become
    /// quoted-pairs (RFC 9110 §5.6.4) and CR/LF are percent-encoded, so a name can never end
    /// the header early. Other characters, UTF-8 included, are sent as they are (RFC 7578).
    static func escape(_ name: String) -> String {
        var escaped = ""
        for character in name {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            case "\r\n": escaped += "%0D%0A"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// The total body size, or `nil` when a file's size cannot be read.
    static func contentLength(of parts: [MultipartFormBodyPart], boundary: String) -> UInt64? {
        var total: UInt64 = 0
        for part in parts {
            total += UInt64(("--\(boundary)" + crlf + headers(for: part)).utf8.count)
            switch part.provider {
            case .data(let data): total += UInt64(data.count)
            case .file(let url):
                guard let size = fileSize(url) else { return nil }
                total += size
            case .inputStream(_, let length): total += length
            }
            total += UInt64(crlf.utf8.count)
        }
        total += UInt64("--\(boundary)--\(crlf)".utf8.count)
        return total
    }

    static func fileSize(_ url: URL) -> UInt64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let size = attributes[.size] as? NSNumber
        else { return nil }
        return size.uint64Value
    }

    /// Writes the whole body to `sink`, reading files and streams in 64 KiB blocks.
    static func write(
        _ parts: [MultipartFormBodyPart], boundary: String, to sink: (Data) throws -> Void
    ) throws {
        for part in parts {
            try sink(Data(("--\(boundary)" + crlf + headers(for: part)).utf8))
            switch part.provider {
            case .data(let data):
                try sink(data)
            case .file(let url):
                guard let stream = InputStream(url: url) else {
                    throw MultipartEncodingFailure.unreadableFile(url)
                }
                try copy(stream, expected: fileSize(url), to: sink, label: url.lastPathComponent)
            case .inputStream(let box, let length):
                guard let stream = box.take() else { throw MultipartEncodingFailure.streamAlreadyRead }
                try copy(stream, expected: length, to: sink, label: part.name)
            }
            try sink(Data(crlf.utf8))
        }
        try sink(Data("--\(boundary)--\(crlf)".utf8))
    }

    /// The body in memory.
    static func encode(_ parts: [MultipartFormBodyPart], boundary: String) throws -> Data {
        var body = Data()
        try write(parts, boundary: boundary) { body.append($0) }
        return body
    }

    /// The body written to a new temporary file, which the caller must remove.
    static func writeToTemporaryFile(_ parts: [MultipartFormBodyPart], boundary: String) throws
        -> URL
    {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-multipart-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: url.path)
        else {
            throw MultipartEncodingFailure.cannotCreateTemporaryFile
        }
        do {
            try write(parts, boundary: boundary) { try handle.write(contentsOf: $0) }
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        return url
    }

    private static func copy(
        _ stream: InputStream, expected: UInt64?, to sink: (Data) throws -> Void, label: String
    ) throws {
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var copied: UInt64 = 0
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 { throw MultipartEncodingFailure.readFailed(label) }
            if count == 0 { break }
            copied += UInt64(count)
            try sink(Data(buffer[0..<count]))
        }
        if let expected, copied != expected {
            throw MultipartEncodingFailure.lengthMismatch(label, expected: expected, actual: copied)
        }
    }
}

/// Why a multipart body could not be written.
public enum MultipartEncodingFailure: Error, Sendable, CustomStringConvertible {
    /// A file part's file cannot be opened.
    case unreadableFile(URL)
    /// Reading a file or stream part failed.
    case readFailed(String)
    /// A part delivered a different number of bytes than announced.
    case lengthMismatch(String, expected: UInt64, actual: UInt64)
    /// A stream part was already consumed by an earlier attempt.
    case streamAlreadyRead
    /// The temporary file for a large body could not be created.
    case cannotCreateTemporaryFile

    /// What went wrong.
    public var description: String {
        switch self {
        case .unreadableFile(let url): "cannot open the file \(url.lastPathComponent) for a multipart part"
        case .readFailed(let label): "reading the multipart part \(label) failed"
        case .lengthMismatch(let label, let expected, let actual):
            "the multipart part \(label) announced \(expected) bytes but delivered \(actual)"
        case .streamAlreadyRead: "a stream part was already read by an earlier attempt and cannot be sent again"
        case .cannotCreateTemporaryFile: "cannot create a temporary file for the multipart body"
        }
    }
}

extension UInt64 {
    fileprivate var hexString: String { String(self, radix: 16) }
}
