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
    /// - Throws: ``CourierError/requestMapping(_:)`` for an invalid URL,
    ///   ``CourierError/parameterEncoding(_:)`` or ``CourierError/encodableMapping(_:)``
    ///   when the task cannot be encoded.
    public func urlRequest() throws(CourierError) -> URLRequest {
        guard let requestURL = parsedURL ?? URL(string: url), requestURL.scheme != nil else {
            throw .requestMapping(url)
        }
        var request = URLRequest(url: requestURL)
        // A new URLRequest is already a GET; the setter normalises the name and costs about
        // 0.4 µs on Linux.
        if method != .get {
            request.httpMethod = method.rawValue
        }
        if let httpHeaderFields {
            for (name, value) in httpHeaderFields {
                request.setValue(value, forHTTPHeaderField: name)
            }
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
                throw .parameterEncoding(CompositeEncodingFailure.bodyEncodingNotInBody)
            }
            let withBody = try request.encoded(parameters: bodyParameters, encoding: bodyEncoding)
            return try withBody.encoded(parameters: urlParameters, encoding: URLEncoding.queryString)
        case .uploadMultipart:
            request.setValue(
                MultipartFormData.contentType(boundary: MultipartFormData.randomBoundary()),
                forHTTPHeaderField: "Content-Type")
            return request
        case .uploadCompositeMultipart(_, let urlParameters):
            request.setValue(
                MultipartFormData.contentType(boundary: MultipartFormData.randomBoundary()),
                forHTTPHeaderField: "Content-Type")
            return try request.encoded(parameters: urlParameters, encoding: URLEncoding.queryString)
        }
    }
}

/// Why a composite request could not be encoded.
public enum CompositeEncodingFailure: Error, Sendable, CustomStringConvertible {
    /// `requestCompositeParameters` was given a `URLEncoding` that does not write the body.
    case bodyEncodingNotInBody

    /// What went wrong.
    public var description: String {
        "requestCompositeParameters needs a body encoding that writes the body "
            + "(URLEncoding.httpBody or JSONEncoding); use urlParameters for the query string"
    }
}

extension URLRequest {
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
