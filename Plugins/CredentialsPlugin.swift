import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Signs requests with HTTP Basic credentials chosen per target, the counterpart of Moya's
/// `CredentialsPlugin`.
///
/// ```swift
/// let credentials = CredentialsPlugin { target in
///     target.path.hasPrefix("admin") ? URLCredential(user: "ada", password: "s3cret", persistence: .none) : nil
/// }
/// let provider = Provider<MyAPI>(plugins: [credentials])
/// ```
///
/// Moya hands the credential to Alamofire, which answers the server's challenge. Here the
/// header is sent up front — `Authorization: Basic base64(user:password)` — since every
/// server that asks for Basic accepts it, and it saves a round trip. Return `nil` to send a
/// request unsigned. The header is set, never appended, so it replaces an earlier
/// `Authorization`. Send Basic credentials over HTTPS only.
public struct CredentialsPlugin: PluginType {
    /// Returns the credential for a target, or `nil` for none.
    public typealias CredentialsClosure = @Sendable (any TargetType) -> URLCredential?

    /// Returns the credential for a target, or `nil` for none.
    public let credentialsClosure: CredentialsClosure

    /// Creates the plugin with a closure that returns the credential for each target.
    public init(credentialsClosure: @escaping CredentialsClosure) {
        self.credentialsClosure = credentialsClosure
    }

    /// Sets `Authorization: Basic …` when the closure returns a credential with a user.
    public func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        guard let credential = credentialsClosure(target), let value = Self.basicAuthorization(for: credential) else {
            return request
        }
        var request = request
        request.setValue(value, forHTTPHeaderField: "Authorization")
        return request
    }

    /// `Basic base64(user:password)`, or `nil` when the credential has no user.
    public static func basicAuthorization(for credential: URLCredential) -> String? {
        guard let user = credential.user else { return nil }
        let pair = "\(user):\(credential.password ?? "")"
        return "Basic \(Data(pair.utf8).base64EncodedString())"
    }
}
