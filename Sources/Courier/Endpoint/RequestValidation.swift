import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why Courier refused to send a request: its method or a header could end a line of the
/// HTTP message early and smuggle in a header or a whole second request.
///
/// It reaches the caller as `CourierError.underlying(RequestValidationError, nil)`, before
/// anything is sent (no plugin's `willSend` runs, no stub answers):
///
/// ```swift
/// do {
///     _ = try await provider.request(.profile)
/// } catch CourierError.underlying(let refusal as RequestValidationError, _) {
///     print(refusal)  // the header name "X-Meta" is followed by U+000D, …
/// }
/// ```
///
/// The description names the method or header and the first character that is not allowed,
/// but never shows a header value (it may be a secret), nor anything of a method or name
/// after the first bad character.
public struct RequestValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Sendable, Equatable {
        /// The method is not an HTTP token (RFC 9110 §9.1 and §5.6.2): empty, or holding a
        /// space, CR, LF, a control or a delimiter. `validPrefix` is the method up to the
        /// first character that is not allowed, `invalidCharacter`.
        case invalidMethod(validPrefix: String, invalidCharacter: Unicode.Scalar?)
        /// A header name is not an HTTP token (RFC 9110 §5.1); same fields as
        /// ``invalidMethod(validPrefix:invalidCharacter:)``.
        case invalidHeaderName(validPrefix: String, invalidCharacter: Unicode.Scalar?)
        /// The value of the header `headerName` holds CR, LF or NUL, which would end the
        /// header line (the value itself is never kept).
        case invalidHeaderValue(headerName: String, invalidCharacter: Unicode.Scalar)
    }

    /// What is wrong.
    public let reason: Reason
    /// The request's URL without its query or fragment (which may carry secrets).
    public let url: String

    /// Creates an error; `url` is shown without its query or fragment.
    public init(reason: Reason, url: URL?) {
        self.reason = reason
        self.url = url?.locationWithoutSecrets ?? "a request without URL"
    }

    /// Which part of which request is refused, and why.
    public var description: String {
        let what: String
        switch reason {
        case .invalidMethod(let prefix, let character):
            what = "the method " + RequestValidation.describe(prefix: prefix, character) + " is not an HTTP token"
        case .invalidHeaderName(let prefix, let character):
            what =
                "the header name " + RequestValidation.describe(prefix: prefix, character)
                + " is not an HTTP token (RFC 9110 §5.1)"
        case .invalidHeaderValue(let name, let character):
            what =
                "the value of header \"\(name)\" holds \(RequestValidation.codePoint(character)), "
                + "which would end the header line"
        }
        return "Courier refused to send the request to \(url): \(what); nothing was sent"
    }
}

/// Checks a request right before it goes to the transport or a stub, whatever set its method
/// and headers (the target, the endpoint closure, the request closure, plugins).
enum RequestValidation {
    /// Throws when the method or a header name is not an HTTP token, or a header value holds
    /// CR, LF or NUL.
    static func validate(_ request: URLRequest) throws(CourierError) {
        // The URL only names the request in an error: it is read (a conversion on Linux) only
        // then.
        try validate(method: request.httpMethod ?? "GET", url: request.url)
        if let fields = request.allHTTPHeaderFields {
            try validate(fields, url: request.url)
        }
    }

    /// Throws when `method` is not an HTTP token.
    static func validate(method: String, url: @autoclosure () -> URL?) throws(CourierError) {
        if !isToken(method), let (prefix, character) = firstNonToken(method) {
            throw refusal(.invalidMethod(validPrefix: prefix, invalidCharacter: character), url)
        }
    }

    /// Throws when a header name is not an HTTP token or a value holds CR, LF or NUL.
    static func validate(_ fields: [String: String], url: @autoclosure () -> URL?) throws(CourierError) {
        // The common case, every field valid, costs one pass over the bytes.
        guard fields.contains(where: { !isToken($0.key) || breaksLine($0.value) }) else { return }
        // Sorted, so that the same headers always give the same error.
        for name in fields.keys.sorted() {
            if let (prefix, character) = firstNonToken(name) {
                throw refusal(.invalidHeaderName(validPrefix: prefix, invalidCharacter: character), url)
            }
            if let character = fields[name]?.unicodeScalars.first(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                throw refusal(.invalidHeaderValue(headerName: name, invalidCharacter: character), url)
            }
        }
    }

    private static func refusal(_ reason: RequestValidationError.Reason, _ url: () -> URL?) -> CourierError {
        .underlying(RequestValidationError(reason: reason, url: url()), nil)
    }

    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 < 0x80 && isTokenCharacter(Unicode.Scalar($0)) }
    }

    private static func breaksLine(_ value: String) -> Bool {
        value.utf8.contains { $0 == 0 || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
    }

    /// `nil` when `text` is a token; otherwise the valid part before the first character that
    /// is not a tchar, and that character (`nil` for an empty text).
    static func firstNonToken(_ text: String) -> (String, Unicode.Scalar?)? {
        guard !text.isEmpty else { return ("", nil) }
        var prefix = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isTokenCharacter(scalar) else { return (String(prefix), scalar) }
            prefix.append(scalar)
        }
        return nil
    }

    /// RFC 9110 §5.6.2: `tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
    /// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA`.
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": true
        default: false
        }
    }

    /// The longest valid prefix shown in a description; a hostile name may be megabytes long.
    private static let shownPrefixLength = 64

    static func describe(prefix: String, _ character: Unicode.Scalar?) -> String {
        let shown = prefix.count > shownPrefixLength ? prefix.prefix(shownPrefixLength) + "…" : prefix
        guard let character else { return "\"\(shown)\" (empty)" }
        return shown.isEmpty
            ? "starting with \(codePoint(character))"
            : "\"\(shown)\" followed by \(codePoint(character))"
    }

    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let printable = scalar.properties.isASCIIHexDigit || (scalar.value > 0x20 && scalar.value < 0x7F)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + (printable ? " ('\(scalar)')" : "")
    }

}
