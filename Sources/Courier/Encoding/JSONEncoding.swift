import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Encodes parameters as a JSON object in the body, with `Content-Type: application/json`
/// unless the request already has a content type.
public struct JSONEncoding: ParameterEncoding {
    /// Compact JSON.
    public static let `default` = JSONEncoding()
    /// Indented JSON.
    public static let prettyPrinted = JSONEncoding(options: .prettyPrinted)

    /// The `JSONSerialization` options used to write the body.
    public let options: JSONSerialization.WritingOptions

    /// Creates an encoding with the given writing options.
    public init(options: JSONSerialization.WritingOptions = []) {
        self.options = options
    }

    /// Returns `request` with `parameters` as its JSON body.
    ///
    /// - Throws: ``CourierError/parameterEncoding(_:)`` when a value is not representable
    ///   in JSON (a `Date` or a custom type, say).
    public func encode(_ request: URLRequest, with parameters: [String: any Sendable]?) throws
        -> URLRequest
    {
        guard let parameters else { return request }
        var request = request
        let object = parameters as [String: Any]
        guard JSONSerialization.isValidJSONObject(object) else {
            throw CourierError.parameterEncoding(ParameterEncodingFailure.invalidJSONObject)
        }
        request.httpBody = try JSONSerialization.data(withJSONObject: object, options: options)
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}
