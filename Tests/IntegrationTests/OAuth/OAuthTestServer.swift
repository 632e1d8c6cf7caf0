import Courier
import CourierTestServer
import Foundation
import Testing

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

    /// Whether the suites against authlib run here: Python's authlib is importable, or
    /// `COURIER_REQUIRE_AUTHLIB` is set. `.ci/run` installs authlib from PyPI and sets it, so that a
    /// failed install fails these suites there instead of leaving them out; on a machine with
    /// only the toolchain and python3, `swift test` leaves them out and says why.
    static let isAvailable: Bool = {
        if ProcessInfo.processInfo.environment["COURIER_REQUIRE_AUTHLIB"] != nil { return true }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import authlib"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        do {
            try probe.run()
            probe.waitUntilExit()
            return probe.terminationStatus == 0
        } catch {
            return false
        }
    }()

    /// Why the suites against authlib are left out when ``isAvailable`` is false.
    static let unavailableReason: Comment =
        "needs Python's authlib: python3 -m pip install 'authlib>=1.6,<2' (.ci/run installs it)"

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
