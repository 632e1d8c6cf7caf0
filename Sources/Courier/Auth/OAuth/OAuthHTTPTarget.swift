import Foundation

/// One request of the OAuth client to a URL it was given whole (a metadata document, a token
/// endpoint): never signed by an ``AuthPlugin``, so sign-in and discovery never recurse into the
/// session they serve.
struct OAuthHTTPTarget: TargetType, AccessTokenAuthorizable {
    /// The whole URL, query included.
    let url: URL
    let method: HTTPMethod
    let task: RequestTask
    let headers: [String: String]?

    var baseURL: URL { url }
    var path: String { "" }
    var authorizationType: AuthorizationType? { nil }

    /// A `GET` that asks for JSON.
    static func get(_ url: URL) -> OAuthHTTPTarget {
        OAuthHTTPTarget(url: url, method: .get, task: .requestPlain, headers: ["Accept": "application/json"])
    }

    /// A form `POST` (`application/x-www-form-urlencoded`), as token, PAR and revocation
    /// endpoints take it, with `headers` added (client authentication).
    static func form(_ url: URL, _ fields: [(String, String)], headers: [String: String] = [:]) -> OAuthHTTPTarget {
        var all = headers
        all["Accept"] = "application/json"
        all["Content-Type"] = "application/x-www-form-urlencoded"
        return OAuthHTTPTarget(url: url, method: .post, task: .requestData(FormBody.encode(fields)), headers: all)
    }
}
