import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Keeps secrets out of error descriptions.
///
/// Underlying errors come from Foundation and from the app's own closures; their texts can
/// quote a URL with a token in its query, or a response body. Everything we print from them
/// passes through here.
enum Redaction {
    /// Query parameter and JSON field names whose values are never printed.
    static let secretNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "password", "client_secret",
        "code", "assertion",
    ]

    /// A description of `error` without token-looking values.
    static func describe(_ error: any Error) -> String {
        let text: String
        if let urlError = error as? URLError {
            text = "URLError \(urlError.code.rawValue) (\(urlErrorName(urlError.code)))"
        } else {
            text = String(describing: error)
        }
        return scrub(text)
    }

    /// Removes bearer tokens, `key=value` and `"key": "value"` secrets from `text`.
    static func scrub(_ text: String) -> String {
        var result = redactQuery(in: text)
        for scheme in ["Bearer ", "Basic ", "bearer ", "basic "] {
            result = redactWord(after: scheme, in: result)
        }
        for name in secretNames {
            result = redactWord(after: "\"\(name)\":\"", in: result)
            result = redactWord(after: "\"\(name)\": \"", in: result)
        }
        return result
    }

    /// `text` with the values of secret query parameters replaced by `<redacted>`.
    static func redactQuery(in text: String) -> String {
        var result = text
        for name in secretNames {
            result = redactWord(after: "\(name)=", in: result)
        }
        return result
    }

    /// Replaces the word following every occurrence of `prefix` by `<redacted>`.
    private static func redactWord(after prefix: String, in text: String) -> String {
        guard text.contains(prefix) else { return text }
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: prefix) {
            // Only a whole-word match: `access_token=` must not hit inside `xaccess_token=`.
            let isWordStart =
                range.lowerBound == rest.startIndex
                || !(rest[rest.index(before: range.lowerBound)].isLetter
                    || rest[rest.index(before: range.lowerBound)] == "_")
            output += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            guard isWordStart || prefix.first == "\"" else { continue }
            let end =
                rest.firstIndex { $0 == "&" || $0 == "\"" || $0 == " " || $0 == "," || $0 == "\n" }
                ?? rest.endIndex
            if end != rest.startIndex {
                output += "<redacted>"
            }
            rest = rest[end...]
        }
        output += rest
        return output
    }

    private static func urlErrorName(_ code: URLError.Code) -> String {
        switch code {
        case .timedOut: "timed out"
        case .cannotConnectToHost: "cannot connect to host"
        case .networkConnectionLost: "network connection lost"
        case .notConnectedToInternet: "not connected to the internet"
        case .cannotFindHost: "cannot find host"
        case .badServerResponse: "bad server response"
        case .cancelled: "cancelled"
        case .badURL: "bad URL"
        case .unsupportedURL: "unsupported URL"
        case .httpTooManyRedirects: "too many redirects"
        case .secureConnectionFailed: "secure connection failed"
        case .cannotDecodeRawData, .cannotDecodeContentData: "cannot decode the data"
        case .cannotParseResponse: "cannot parse the response"
        case .userAuthenticationRequired: "user authentication required"
        case .zeroByteResource: "zero byte resource"
        case .dataLengthExceedsMaximum: "data length exceeds maximum"
        case .fileDoesNotExist: "file does not exist"
        case .unknown: "unknown network error"
        default: "network error"
        }
    }
}
