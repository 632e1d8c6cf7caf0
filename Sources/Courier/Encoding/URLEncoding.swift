import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Encodes parameters as `application/x-www-form-urlencoded` pairs, in the URL's query
/// string or in the body, the way Alamofire does.
///
/// - Keys are sorted, so the same parameters always give the same string.
/// - Arrays become `key[]=a&key[]=b` by default; ``ArrayEncoding`` has Alamofire's other
///   spellings. Nested dictionaries become `key[sub]=value`.
/// - Booleans become `1` and `0` by default, or `true` and `false` with
///   ``BoolEncoding/literal``.
/// - Everything is percent-escaped except the characters RFC 3986 allows in a query
///   (`?` and `/` stay as they are); so are the brackets in keys.
///
/// ```swift
/// let encoding = URLEncoding(destination: .queryString, arrayEncoding: .noBrackets, boolEncoding: .literal)
/// // ["ids": [1, 2], "all": true] → "all=true&ids=1&ids=2"
/// ```
public struct URLEncoding: ParameterEncoding {
    /// Where the encoded parameters go.
    public enum Destination: Sendable {
        /// The query string for `GET`, `HEAD` and `DELETE`; the body for other methods.
        case methodDependent
        /// Always the query string.
        case queryString
        /// Always the body, with `Content-Type: application/x-www-form-urlencoded;
        /// charset=utf-8` unless the request already has a content type.
        case httpBody
    }

    /// How array parameters are written, as Alamofire's `URLEncoding.ArrayEncoding`.
    public enum ArrayEncoding: Sendable, Hashable {
        /// `key[]=a&key[]=b` (the default).
        case brackets
        /// `key=a&key=b`.
        case noBrackets
        /// `key[0]=a&key[1]=b`.
        case indexInBrackets

        /// The key under which the element at `index` of the array `key` is written.
        func encode(key: String, atIndex index: Int) -> String {
            switch self {
            case .brackets: "\(key)[]"
            case .noBrackets: key
            case .indexInBrackets: "\(key)[\(index)]"
            }
        }
    }

    /// How `Bool` parameters are written, as Alamofire's `URLEncoding.BoolEncoding`.
    public enum BoolEncoding: Sendable, Hashable {
        /// `1` and `0` (the default).
        case numeric
        /// `true` and `false`.
        case literal

        /// `value` as this encoding writes it.
        func encode(value: Bool) -> String {
            switch self {
            case .numeric: value ? "1" : "0"
            case .literal: value ? "true" : "false"
            }
        }
    }

    /// The query string for `GET`, `HEAD` and `DELETE`, the body otherwise.
    public static let `default` = URLEncoding(destination: .methodDependent)
    /// Always the query string.
    public static let queryString = URLEncoding(destination: .queryString)
    /// Always the body.
    public static let httpBody = URLEncoding(destination: .httpBody)

    /// Where this encoding puts the parameters.
    public let destination: Destination
    /// How array parameters are written.
    public let arrayEncoding: ArrayEncoding
    /// How `Bool` parameters are written.
    public let boolEncoding: BoolEncoding

    /// Creates an encoding; the defaults are Alamofire's (and ``default``'s).
    ///
    /// - Parameters:
    ///   - destination: where the parameters go.
    ///   - arrayEncoding: how arrays are written (`key[]=…`).
    ///   - boolEncoding: how booleans are written (`1`/`0`).
    public init(
        destination: Destination = .methodDependent, arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric
    ) {
        self.destination = destination
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
    }

    /// Returns `request` with `parameters` encoded into its query string or body.
    public func encode(_ request: URLRequest, with parameters: [String: any Sendable]?) throws
        -> URLRequest
    {
        guard let parameters, !parameters.isEmpty else { return request }
        var request = request
        let method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        let inURL: Bool
        switch destination {
        case .methodDependent: inURL = method.encodesParametersInURL
        case .queryString: inURL = true
        case .httpBody: inURL = false
        }
        let encoded = query(parameters)
        if inURL {
            guard let url = request.url else {
                throw CourierError.parameterEncoding(ParameterEncodingFailure.missingURL)
            }
            guard let newURL = Self.url(url, appendingQuery: encoded) else {
                throw CourierError.parameterEncoding(ParameterEncodingFailure.invalidQuery)
            }
            request.url = newURL
        } else {
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue(
                    "application/x-www-form-urlencoded; charset=utf-8",
                    forHTTPHeaderField: "Content-Type")
            }
            request.httpBody = Data(encoded.utf8)
        }
        return request
    }

    /// The parameters as a percent-escaped query string, keys sorted, with the default
    /// array and `Bool` encodings.
    public static func query(_ parameters: [String: any Sendable]) -> String {
        URLEncoding().query(parameters)
    }

    /// The parameters as a percent-escaped query string, keys sorted, with this encoding's
    /// ``arrayEncoding`` and ``boolEncoding``.
    public func query(_ parameters: [String: any Sendable]) -> String {
        var components: [(String, String)] = []
        for key in parameters.keys.sorted() {
            if let value = parameters[key] {
                appendComponents(key: key, value: value, to: &components)
            }
        }
        var result = ""
        for (index, (key, value)) in components.enumerated() {
            if index > 0 { result.append("&") }
            result.append(key)
            result.append("=")
            result.append(value)
        }
        return result
    }

    /// Percent-escapes `string` for a query key or value, leaving `?` and `/` alone.
    public static func escape(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: queryValueAllowed) ?? string
    }

    private static let queryValueAllowed: CharacterSet = {
        // RFC 3986 §3.4 without the delimiters that split pairs or could be misread.
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
        return allowed
    }()

    private func appendComponents(
        key: String, value: Any, to components: inout [(String, String)]
    ) {
        if let dictionary = value as? [String: Any] {
            for nestedKey in dictionary.keys.sorted() {
                if let nested = dictionary[nestedKey] {
                    appendComponents(key: "\(key)[\(nestedKey)]", value: nested, to: &components)
                }
            }
        } else if let array = value as? [Any] {
            for (index, element) in array.enumerated() {
                appendComponents(
                    key: arrayEncoding.encode(key: key, atIndex: index), value: element, to: &components)
            }
        } else if let bool = value as? Bool, type(of: value) == Bool.self {
            components.append((Self.escape(key), boolEncoding.encode(value: bool)))
        } else if value is NSNull {
            components.append((Self.escape(key), ""))
        } else {
            components.append((Self.escape(key), Self.escape(String(describing: value))))
        }
    }

    /// `url` with `query` appended to its existing query, if any.
    static func url(_ url: URL, appendingQuery query: String) -> URL? {
        guard !query.isEmpty else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return nil
        }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + query
        } else {
            components.percentEncodedQuery = query
        }
        return components.url
    }
}
