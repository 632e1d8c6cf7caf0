import Courier
import CourierTestServer
import Foundation

/// The authlib authorization server in `Tests/Server/oauth/server.py`, started for one test on
/// an ephemeral loopback port and stopped with it.
struct OAuthTestServer {
    let helper: HelperServer
    let issuer: URL

    /// One of its test-only admin requests.
    struct Admin: TargetType, AccessTokenAuthorizable {
        let baseURL: URL
        let path: String
        let method: HTTPMethod
        let task: RequestTask
        var headers: [String: String]? { nil }
        var authorizationType: AuthorizationType? { nil }
    }

    /// The server's `READY` line named no issuer.
    struct StartFailure: Error, CustomStringConvertible {
        let fields: [String]
        var description: String { "oauth/server.py named no issuer in READY \(fields.joined(separator: " "))" }
    }

    /// Starts the server; returns once it listens (its `READY` line).
    static func start() async throws -> OAuthTestServer {
        let helper = try await HelperServer.start("oauth/server.py")
        guard let issuer = helper.value("issuer").flatMap(URL.init(string:)) else {
            helper.stop()
            throw StartFailure(fields: helper.fields)
        }
        return OAuthTestServer(helper: helper, issuer: issuer)
    }

    /// The protected resource's URL.
    var resource: URL { issuer.appendingPathComponent("mcp") }

    /// Changes its test switches (`metadata_issuer`, `oidc_only`, `response_iss`, …).
    func configure(_ settings: [String: any Sendable]) async throws {
        _ = try await Provider<Admin>().request(
            Admin(
                baseURL: issuer, path: "_admin/config", method: .post,
                task: .requestParameters(parameters: settings, encoding: JSONEncoding.default))
        )
        .filterSuccessfulStatusCodes()
    }

    /// Its counters: requests by method and path, token answers by status, refresh grants.
    func counters() async throws -> [String: Int] {
        try await Provider<Admin>().request(
            Admin(baseURL: issuer, path: "_admin/counters", method: .get, task: .requestPlain), as: [String: Int].self)
    }

    func stop() { helper.stop() }
}
