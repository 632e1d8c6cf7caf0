/// JSON string literals read and written by hand, for the redactors: Foundation can only
/// parse a whole document, and a key or a value is all they need.
enum JSONStringCoding {
    /// The text of a string literal's contents (between the quotes): escapes decoded,
    /// surrogate pairs joined, a lone surrogate or an invalid escape read as U+FFFD (so that
    /// nothing is dropped silently), invalid UTF-8 read as U+FFFD.
    static func decode(_ contents: UnsafeBufferPointer<UInt8>) -> String {
        guard contents.contains(UInt8(ascii: "\\")) else {
            return String(decoding: contents, as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        var pendingHighSurrogate: UInt32?
        var index = 0
        func flushSurrogate() {
            if pendingHighSurrogate != nil { scalars.append("\u{FFFD}") }
            pendingHighSurrogate = nil
        }
        while index < contents.count {
            let byte = contents[index]
            guard byte == UInt8(ascii: "\\") else {
                flushSurrogate()
                // A run of plain bytes, decoded as UTF-8 in one go.
                var end = index
                while end < contents.count, contents[end] != UInt8(ascii: "\\") { end += 1 }
                scalars.append(
                    contentsOf: String(decoding: UnsafeBufferPointer(rebasing: contents[index..<end]), as: UTF8.self)
                        .unicodeScalars)
                index = end
                continue
            }
            guard index + 1 < contents.count else {
                flushSurrogate()
                scalars.append("\u{FFFD}")
                break
            }
            let escaped = contents[index + 1]
            if escaped == UInt8(ascii: "u"), let value = hexValue(contents, at: index + 2) {
                index += 6
                if (0xD800...0xDBFF).contains(value) {
                    flushSurrogate()
                    pendingHighSurrogate = value
                } else if (0xDC00...0xDFFF).contains(value) {
                    if let high = pendingHighSurrogate {
                        let combined = 0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00)
                        scalars.append(Unicode.Scalar(combined) ?? "\u{FFFD}")
                        pendingHighSurrogate = nil
                    } else {
                        scalars.append("\u{FFFD}")
                    }
                } else {
                    flushSurrogate()
                    scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                }
                continue
            }
            flushSurrogate()
            index += 2
            switch escaped {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                // `\u` without four hex digits: not JSON; keep what follows readable.
                scalars.append("\u{FFFD}")
                index -= 1
            default:
                // Lenient, for text that only looks like JSON: `\_` reads `_`.
                scalars.append(Unicode.Scalar(escaped))
            }
        }
        flushSurrogate()
        return String(scalars)
    }

    /// `text` as a JSON string literal, quotes included: `"`, `\` and control characters
    /// escaped, everything else (`/`, non-ASCII) written as it is.
    static func encode(_ text: String) -> [UInt8] {
        var output: [UInt8] = [UInt8(ascii: "\"")]
        output.reserveCapacity(text.utf8.count + 2)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: output += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: output += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
        return output
    }

    /// The value of the four hex digits at `index`, or `nil`.
    static func hexValue(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = hexDigit(bytes[index + offset]) else { return nil }
            value = value << 4 | digit
        }
        return value
    }

    static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
