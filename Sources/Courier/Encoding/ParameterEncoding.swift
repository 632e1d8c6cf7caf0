import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Encodes a target's parameters into a request: into its URL's query string, its body, or
/// both.
///
/// Courier ships ``URLEncoding`` and ``JSONEncoding``. Write your own for another format:
///
/// ```swift
/// struct PlistEncoding: ParameterEncoding {
///     func encode(_ request: URLRequest, with parameters: [String: any Sendable]?) throws -> URLRequest {
///         var request = request
///         request.httpBody = try PropertyListSerialization.data(
///             fromPropertyList: parameters ?? [:], format: .xml, options: 0)
///         return request
///     }
/// }
/// ```
public protocol ParameterEncoding: Sendable {
    /// Returns `request` with `parameters` encoded into it.
    ///
    /// - Throws: an error that says why the parameters cannot be encoded; the provider
    ///   reports it as ``CourierError/parameterEncoding(_:)``.
    func encode(_ request: URLRequest, with parameters: [String: any Sendable]?) throws
        -> URLRequest
}
