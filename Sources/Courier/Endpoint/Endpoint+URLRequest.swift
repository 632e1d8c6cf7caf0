import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Endpoint {
    /// The `URLRequest` for this endpoint: URL, method, headers, and the task's parameters
    /// or body encoded into it.
    ///
    /// Upload and download bodies are not part of the `URLRequest`: the provider streams them
    /// when it sends the request (a multipart request gets its `Content-Type` with the
    /// boundary here, so plugins see it).
    ///
    /// - Throws: ``CourierError/underlying(_:_:)`` with a ``RequestValidationError`` for a
    ///   header name that is not an HTTP token or a value holding CR, LF or NUL,
    ///   ``CourierError/requestMapping(_:)`` for a URL that is invalid or relative
    ///   (`Endpoint(url: "users/1")`, which Moya sends when stubbed: Courier needs an absolute
    ///   URL, stubbed or not, and its description says so),
    ///   ``CourierError/parameterEncoding(_:)`` or ``CourierError/encodableMapping(_:)``
    ///   when the task cannot be encoded.
    public func urlRequest() throws(CourierError) -> URLRequest {
        guard let requestURL = parsedURL ?? URL(string: url), requestURL.scheme != nil else {
            throw .requestMapping(url)
        }
        if !isChecked {
            try checkMethodAndHeaders(url: requestURL)
        }
        var request = URLRequest(url: requestURL)
        // A new URLRequest is already a GET; the setter normalises the name and costs about
        // 0.4 µs on Linux.
        if method != .get {
            request.httpMethod = method.rawValue
        }
        if let httpHeaderFields {
            request.setHeaderFields(httpHeaderFields)
        }
        switch task {
        case .requestPlain, .uploadFile, .downloadDestination:
            return request
        case .requestData(let data):
            request.httpBody = data
            return request
        case .requestJSONEncodable(let encodable):
            return try request.encoded(encodable: encodable, encoder: JSONEncoder())
        case .requestCustomJSONEncodable(let encodable, let encoder):
            return try request.encoded(encodable: encodable, encoder: encoder)
        case .requestParameters(let parameters, let encoding),
            .downloadParameters(let parameters, let encoding, _):
            return try request.encoded(parameters: parameters, encoding: encoding)
        case .requestCompositeData(let bodyData, let urlParameters):
            request.httpBody = bodyData
            return try request.encoded(parameters: urlParameters, encoding: URLEncoding.queryString)
        case .requestCompositeParameters(let bodyParameters, let bodyEncoding, let urlParameters):
            if let urlEncoding = bodyEncoding as? URLEncoding, urlEncoding.destination != .httpBody {
                // Moya's rule: a composite body must go in the body, or it would silently
                // merge with the URL parameters.
                throw .parameterEncoding(ParameterEncodingFailure.bodyEncodingNotInBody)
            }
            let withBody = try request.encoded(parameters: bodyParameters, encoding: bodyEncoding)
            return try withBody.encoded(parameters: urlParameters, encoding: URLEncoding.queryString)
        case .uploadMultipart:
            request.setValue(
                MultipartFormat.contentType(boundary: MultipartFormat.randomBoundary()),
                forHTTPHeaderField: "Content-Type")
            return request
        case .uploadCompositeMultipart(_, let urlParameters):
            request.setValue(
                MultipartFormat.contentType(boundary: MultipartFormat.randomBoundary()),
                forHTTPHeaderField: "Content-Type")
            return try request.encoded(parameters: urlParameters, encoding: URLEncoding.queryString)
        }
    }
}

extension Endpoint {
    /// Checks the method and header fields: a provider checks them once per call, and every
    /// attempt's ``urlRequest()`` then skips the check.
    ///
    /// - Throws: ``CourierError/underlying(_:_:)`` with a ``RequestValidationError``.
    mutating func checkForSending() throws(CourierError) {
        try checkMethodAndHeaders(url: parsedURL ?? URL(string: url))
        markChecked()
    }

    /// Checked before Foundation sees them: it would turn an empty method into GET, and
    /// silently drop a header value holding CR, LF or NUL.
    private func checkMethodAndHeaders(url: @autoclosure () -> URL?) throws(CourierError) {
        try RequestValidation.validate(method: method.rawValue, url: url())
        if let httpHeaderFields {
            try RequestValidation.validate(httpHeaderFields, url: url())
        }
    }
}

extension URLRequest {
    /// Sets `fields` on a request that has no header field yet, exactly as calling
    /// `setValue(_:forHTTPHeaderField:)` for each would.
    fileprivate mutating func setHeaderFields(_ fields: [String: String]) {
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation's setValue capitalizes the name (`String.capitalized`,
            // about 0.4 µs), validates the value Character by Character, and looks for an
            // existing field case-insensitively: about 1 µs per field. For ASCII names and
            // values without NUL, CR or LF the outcome is known — the memoised capitalized
            // name, the value as is, the last of case-insensitively equal names — so the
            // fields are set in one go. Anything else takes Foundation's own path.
            if !fields.isEmpty, let prepared = HeaderFieldNames.prepared(fields) {
                allHTTPHeaderFields = prepared
                return
            }
        #endif
        for (name, value) in fields {
            setValue(value, forHTTPHeaderField: name)
        }
    }

    fileprivate func encoded(parameters: [String: any Sendable], encoding: any ParameterEncoding)
        throws(CourierError) -> URLRequest
    {
        do {
            return try encoding.encode(self, with: parameters)
        } catch let error as CourierError {
            throw error
        } catch {
            throw .parameterEncoding(error)
        }
    }

    fileprivate func encoded(encodable: any Encodable, encoder: JSONEncoder) throws(CourierError)
        -> URLRequest
    {
        var request = self
        do {
            request.httpBody = try encoder.encode(encodable)
        } catch {
            throw .encodableMapping(error)
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}

#if canImport(FoundationNetworking)
    /// Header fields as swift-corelibs-foundation's `NSMutableURLRequest.setValue(_:forHTTPHeaderField:)`
    /// stores them, computed without its per-call costs.
    enum HeaderFieldNames {
        /// `fields` with every name capitalized as `setValue` stores it, or `nil` when a name is
        /// not ASCII or a value holds NUL, CR or LF (those take Foundation's own path).
        static func prepared(_ fields: [String: String]) -> [String: String]? {
            var prepared: [String: String] = Dictionary(minimumCapacity: fields.count)
            for (name, value) in fields {
                guard name.utf8.allSatisfy({ $0 < 0x80 }),
                    !value.utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") })
                else { return nil }
                // For ASCII names, equal capitalized forms is the same as case-insensitively
                // equal names, so a later field replaces an earlier one as setValue would.
                prepared[capitalized(name)] = value
            }
            return prepared
        }

        /// `name.capitalized`, memoised: an app uses a handful of header names.
        static func capitalized(_ name: String) -> String {
            if let known = cache.lookUp(name) { return known }
            let capitalized = name.capitalized
            cache.store(capitalized, for: name)
            return capitalized
        }

        private static let cache = NameCache()

        /// At most `limit` names, so names made up at run time cannot grow it without bound.
        private final class NameCache: Sendable {
            private let names = Locked<[String: String]>([:])
            private let limit = 256

            func lookUp(_ name: String) -> String? {
                names.withValue { $0[name] }
            }

            func store(_ capitalized: String, for name: String) {
                names.withValue { if $0.count < limit { $0[name] = capitalized } }
            }
        }
    }
#endif
