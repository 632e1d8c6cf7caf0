/// Why Courier's own encodings could not put a target's parameters into its request.
///
/// It reaches you as ``CourierError/parameterEncoding(_:)``. (A ``ParameterEncoding`` of
/// your own reports there whatever error it throws.)
public enum ParameterEncodingFailure: Error, Sendable, CustomStringConvertible {
    /// ``URLEncoding``: the request has no URL to add a query string to.
    case missingURL
    /// ``URLEncoding``: the encoded query string does not make a valid URL.
    case invalidQuery
    /// ``JSONEncoding``: a value is not a string, number, boolean, `NSNull`, array or
    /// dictionary.
    case invalidJSONObject
    /// ``RequestTask/requestCompositeParameters(bodyParameters:bodyEncoding:urlParameters:)``
    /// was given a body encoding that does not write the body.
    case bodyEncodingNotInBody

    /// What went wrong.
    public var description: String {
        switch self {
        case .missingURL: "the request has no URL to add the query string to"
        case .invalidQuery: "the encoded query string does not make a valid URL"
        case .invalidJSONObject:
            "the parameters contain a value that cannot be written as JSON "
                + "(only strings, numbers, booleans, null, arrays and dictionaries can)"
        case .bodyEncodingNotInBody:
            "requestCompositeParameters needs a body encoding that writes the body "
                + "(URLEncoding.httpBody or JSONEncoding); use urlParameters for the query string"
        }
    }
}
