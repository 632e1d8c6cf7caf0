import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Signs requests with a static access token, as Moya's plugin of the same name does.
///
/// For tokens that expire, use `RefreshableProvider` (or `AuthPlugin`) instead.
///
/// ```swift
/// let provider = Provider<MyAPI>(plugins: [AccessTokenPlugin { _ in keychain.token }])
/// ```
///
/// A target that conforms to `AccessTokenAuthorizable` chooses the scheme, or `nil` for no
/// header; other targets get `Bearer`. The header is set, never appended, so a request that
/// is prepared twice still carries one `Authorization`.
public struct AccessTokenPlugin: PluginType {
    /// Returns the token for a target.
    public typealias TokenClosure = @Sendable (any TargetType) -> String

    /// Returns the token for a target.
    public let tokenClosure: TokenClosure

    /// Creates the plugin with a closure that returns the current token.
    public init(tokenClosure: @escaping TokenClosure) {
        self.tokenClosure = tokenClosure
    }

    /// Sets `Authorization: <scheme> <token>` unless the target's authorization type is
    /// `nil`.
    public func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        guard let authorizationType = target.resolvedAuthorizationType else { return request }
        var request = request
        request.setValue(
            "\(authorizationType.value) \(tokenClosure(target))", forHTTPHeaderField: "Authorization")
        return request
    }
}
