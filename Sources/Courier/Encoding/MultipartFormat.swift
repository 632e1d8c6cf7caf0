import Foundation

/// The `multipart/form-data` format (RFC 7578): boundaries, part headers and sizes.
///
/// Writing a body is in `MultipartFormat+Writing.swift`. Small bodies are assembled in
/// memory; bodies whose size reaches ``encodingMemoryThreshold`` are written to a temporary
/// file and uploaded from disk, so a large upload never sits in memory whole.
enum MultipartFormat {
    /// Bodies of this many bytes or more go through a temporary file (10 MiB, as Alamofire).
    static let encodingMemoryThreshold: UInt64 = 10 * 1024 * 1024

    /// The threshold for requests sent from the current task: ``encodingMemoryThreshold``,
    /// unless a test lowers it to exercise the disk path with small bodies.
    @TaskLocal static var memoryThreshold: UInt64 = encodingMemoryThreshold

    static let crlf = "\r\n"

    /// A new boundary: 128 random bits, so it cannot be guessed or collide with a part.
    static func randomBoundary() -> String {
        let high = String(UInt64.random(in: .min ... .max), radix: 16)
        let low = String(UInt64.random(in: .min ... .max), radix: 16)
        return "courier.boundary.\(high)\(low)"
    }

    static func contentType(boundary: String) -> String {
        "multipart/form-data; boundary=\(boundary)"
    }

    /// The boundary in a `multipart/…` content type, if there is one (quoted or not).
    static func boundary(fromContentType contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.trimmingCharacters(in: .whitespaces)
            if pair.lowercased().hasPrefix("boundary=") {
                let value = pair.dropFirst("boundary=".count)
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    return String(value.dropFirst().dropLast())
                }
                return String(value)
            }
        }
        return nil
    }

    /// Whether `boundary` is one RFC 2046 §5.1.1 allows: 1 to 70 characters from its set,
    /// not ending with a space.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")
        return (1...70).contains(boundary.count) && boundary.allSatisfy(allowed.contains)
            && !boundary.hasSuffix(" ")
    }

    /// The delimiter line and headers that open `part`, ending with the blank line.
    static func opening(of part: MultipartFormBodyPart, boundary: String) -> Data {
        Data(("--\(boundary)" + crlf + headers(for: part)).utf8)
    }

    /// The close delimiter that ends the body.
    static func closing(boundary: String) -> Data {
        Data("--\(boundary)--\(crlf)".utf8)
    }

    /// The headers of one part, each followed by CRLF, then the blank line.
    static func headers(for part: MultipartFormBodyPart) -> String {
        var disposition = "Content-Disposition: form-data; name=\"\(escape(part.name))\""
        if let fileName = part.fileName {
            disposition += "; filename=\"\(escape(fileName))\""
        }
        var headers = disposition + crlf
        if let mimeType = part.mimeType {
            headers += "Content-Type: \(mimeType.filter { !$0.isHeaderBreaking })" + crlf
        }
        return headers + crlf
    }

    /// Escapes a name for a quoted `Content-Disposition` parameter, so that a field or file
    /// name can never end the parameter or the header early.
    ///
    /// `"` and `\` become quoted-pairs (RFC 9110 §5.6.4); CR, LF and the other control
    /// characters (but tab) are percent-encoded, as browsers do (RFC 7578 §4.2); everything
    /// else, UTF-8 included, is sent as it is. RFC 7578 forbids `filename*`, so there is none.
    static func escape(_ name: String) -> String {
        var escaped = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\t": escaped.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                escaped += "%" + String(format: "%02X", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// The total body size, or `nil` when a file's size cannot be read.
    static func contentLength(of parts: [MultipartFormBodyPart], boundary: String) -> UInt64? {
        var total: UInt64 = 0
        for part in parts {
            total += UInt64(opening(of: part, boundary: boundary).count)
            switch part.provider {
            case .data(let data): total += UInt64(data.count)
            case .file(let url):
                guard let size = regularFileSize(url) else { return nil }
                total += size
            case .inputStream(_, let length): total += length
            }
            total += UInt64(crlf.utf8.count)
        }
        return total + UInt64(closing(boundary: boundary).count)
    }

    /// The size of the regular file at `url`; `nil` when there is none (or it is a
    /// directory, which `URLSession` would wait on forever).
    static func regularFileSize(_ url: URL) -> UInt64? {
        guard url.isFileURL,
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? NSNumber
        else { return nil }
        return size.uint64Value
    }
}

extension Character {
    /// CR or LF, which would end a header line.
    fileprivate var isHeaderBreaking: Bool {
        unicodeScalars.contains { $0 == "\r" || $0 == "\n" }
    }
}
