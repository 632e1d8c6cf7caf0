import Foundation

/// Base64url without padding (RFC 7515 §2), as JOSE writes every binary value.
enum Base64URL {
    /// `data` as base64url, without `=` padding.
    static func encode(_ data: Data) -> String {
        var text = data.base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.last == "=" { text.removeLast() }
        return text
    }

    /// The bytes of base64url `text` (padding optional), or `nil` when it is not base64url.
    static func decode(_ text: String) -> Data? {
        guard !text.contains(where: { $0 == "+" || $0 == "/" }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard.append("=") }
        return Data(base64Encoded: standard)
    }
}
