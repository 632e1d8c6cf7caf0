import Foundation

/// How a client proves who it is to the token endpoint (RFC 6749 §2.3, RFC 7591's
/// `token_endpoint_auth_method`). The secret never appears in a description or a `dump`.
public struct OAuthClientAuthentication: Sendable {
    enum Method: Sendable {
        case none
        case clientSecretBasic(String)
        case clientSecretPost(String)
    }

    let method: Method

    /// A public client (a command-line tool, an app): only `client_id` is sent, and PKCE
    /// protects the code.
    public static let none = OAuthClientAuthentication(method: .none)

    /// `client_secret_basic`: the id and secret in `Authorization: Basic` (each form-encoded
    /// first, as RFC 6749 §2.3.1 says).
    public static func clientSecretBasic(_ secret: String) -> OAuthClientAuthentication {
        OAuthClientAuthentication(method: .clientSecretBasic(secret))
    }

    /// `client_secret_post`: the id and secret as `client_id` and `client_secret` in the body.
    public static func clientSecretPost(_ secret: String) -> OAuthClientAuthentication {
        OAuthClientAuthentication(method: .clientSecretPost(secret))
    }

    /// The method's name, as metadata spells it.
    public var name: String {
        switch method {
        case .none: "none"
        case .clientSecretBasic: "client_secret_basic"
        case .clientSecretPost: "client_secret_post"
        }
    }

    /// Adds the client's credentials to a token request.
    func apply(clientID: String, to fields: inout [(String, String)], headers: inout [String: String]) {
        switch method {
        case .none:
            fields.append(("client_id", clientID))
        case .clientSecretPost(let secret):
            fields.append(("client_id", clientID))
            fields.append(("client_secret", secret))
        case .clientSecretBasic(let secret):
            let pair = FormBody.escape(clientID) + ":" + FormBody.escape(secret)
            headers["Authorization"] = "Basic " + Data(pair.utf8).base64EncodedString()
        }
    }
}

extension OAuthClientAuthentication: CustomStringConvertible, CustomReflectable {
    /// The method's name; never the secret.
    public var description: String { name }
    /// The method's name only, so `dump()` shows no secret.
    public var customMirror: Mirror { Mirror(self, children: ["method": name], displayStyle: .struct) }
}

/// `application/x-www-form-urlencoded` bodies with repeated names (`resource` may be given
/// several times, RFC 8707).
enum FormBody {
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `text` escaped for a form: everything but unreserved characters percent-encoded.
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// The body for `fields`, in order.
    static func encode(_ fields: [(String, String)]) -> Data {
        Data(fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&").utf8)
    }
}
