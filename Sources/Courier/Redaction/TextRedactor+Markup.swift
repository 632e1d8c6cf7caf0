/// The XML rule of ``TextRedactor``: an element whose name is secret (`<password>…</password>`,
/// `<ns:refresh_token>…`) has its content hidden, as SOAP faults and XML error bodies write
/// fields. Its attributes are `name="value"` pairs, which the `=` rule reads.
extension TextRedactor {
    /// At the `>` of a start tag with a secret name: the element's content is hidden — text
    /// up to the next tag, a CDATA section whole, or nested elements up to the element's end
    /// tag (or the end of the text when there is none). The tag's attributes were read
    /// already, by the `=` rule.
    mutating func redactElement() -> Bool {
        guard index > 0, input[index - 1] != UInt8(ascii: "/") else { return false }
        var open = index - 1
        while open >= 0, input[open] != UInt8(ascii: "<"), input[open] != UInt8(ascii: ">") { open -= 1 }
        guard open >= 0, input[open] == UInt8(ascii: "<") else { return false }
        let nameStart = open + 1
        var nameEnd = nameStart
        while nameEnd < index, Self.isNameByte(input[nameEnd]) || input[nameEnd] == UInt8(ascii: ":") { nameEnd += 1 }
        // The local name, after a namespace prefix.
        var localStart = nameStart
        for offset in nameStart..<nameEnd where input[offset] == UInt8(ascii: ":") { localStart = offset + 1 }
        let name = UnsafeBufferPointer(rebasing: input[localStart..<nameEnd])
        guard !name.isEmpty, isSecretKey(name) else { return false }
        let start = index + 1
        var end = start
        if matches("<![CDATA[", at: start) {
            end = find("]]>", from: start).map { $0 + 3 } ?? input.count
        } else if start + 1 < input.count, input[start] == UInt8(ascii: "<"), input[start + 1] != UInt8(ascii: "/") {
            let closing =
                "</" + String(decoding: UnsafeBufferPointer(rebasing: input[nameStart..<nameEnd]), as: UTF8.self)
            end = find(closing, from: start) ?? input.count
        } else {
            while end < input.count, input[end] != UInt8(ascii: "<") { end += 1 }
        }
        if end > start {
            replace(start, end)
        } else {
            index = start
        }
        return true
    }

    private func matches(_ text: String, at position: Int) -> Bool {
        var offset = position
        for byte in text.utf8 {
            guard offset < input.count, input[offset] == byte else { return false }
            offset += 1
        }
        return true
    }

    /// Where `text` next occurs from `position`.
    private func find(_ text: String, from position: Int) -> Int? {
        guard let first = text.utf8.first else { return position }
        var offset = position
        while offset < input.count {
            if input[offset] == first, matches(text, at: offset) { return offset }
            offset += 1
        }
        return nil
    }
}
