// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

/// Case-insensitive comparisons of ASCII header names and schemes, byte by byte: this runs
/// for every header of every request and response, where Foundation's
/// `caseInsensitiveCompare` goes through `NSString` (about a microsecond a call) and
/// `lowercased()` allocates. Header names are tokens, which are ASCII; any other byte
/// compares as itself.
enum CurlASCII {
    /// Whether `text` is `other`, ignoring the case of ASCII letters.
    static func equal(_ text: String, _ other: String) -> Bool {
        let left = text.utf8
        let right = other.utf8
        guard left.count == right.count else { return false }
        for (a, b) in zip(left, right) where lowered(a) != lowered(b) { return false }
        return true
    }

    /// Whether `bytes` spell `lowercase` (given in lower case), ignoring the case of ASCII letters.
    static func equal(_ bytes: UnsafeRawBufferPointer, lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for index in 0..<bytes.count where lowered(bytes[index]) != expected[index] { return false }
        return true
    }

    @inline(__always)
    static func lowered(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }
}

#endif
