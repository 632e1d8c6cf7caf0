import Courier
import CourierTestServer
import Foundation
import Testing

/// Discovery against a real authorization server (authlib) and its protected resource.
@Suite(
    "OAuth discovery against authlib", .enabled(if: OAuthTestServer.isAvailable, OAuthTestServer.unavailableReason),
    .timeLimit(.minutes(20)))
struct OAuthDiscoveryServerTests {
    struct MCP: TargetType {
        let baseURL: URL
        var path: String { "" }
        var method: HTTPMethod { .post }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    @Test("the issuer's RFC 8414 metadata is found and checked")
    func byIssuer() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        let metadata = try await OAuthDiscovery().authorizationServer(issuer: server.issuer)
        #expect(metadata.issuer == server.issuer)
        #expect(metadata.tokenEndpoint == server.issuer.appendingPathComponent("token"))
        #expect(metadata.authorizationResponseIssParameterSupported)
        #expect(try await server.counters()["GET /.well-known/openid-configuration"] == nil)
    }

    @Test("a server that publishes only openid-configuration is found through it")
    func byOpenIDConfiguration() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        try await server.configure(["oidc_only": true])
        let metadata = try await OAuthDiscovery().authorizationServer(issuer: server.issuer)
        #expect(metadata.authorizationEndpoint == server.issuer.appendingPathComponent("authorize"))
        let counters = try await server.counters()
        #expect(counters["GET /.well-known/oauth-authorization-server"] == 1)
        #expect(counters["GET /.well-known/openid-configuration"] == 1)
    }

    @Test("metadata that names another issuer is refused with an error that says so")
    func anotherIssuer() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        try await server.configure(["metadata_issuer": "https://impostor.example.com"])
        let error = await #expect(throws: OAuthDiscoveryError.self) {
            try await OAuthDiscovery().authorizationServer(issuer: server.issuer)
        }
        let text = error.map { String(describing: $0) } ?? ""
        #expect(text.contains("https://impostor.example.com"))
        #expect(text.contains(server.issuer.absoluteString))
    }

    @Test("from nothing but a resource URL: its 401 leads to its metadata and its authorization server")
    func fromResourceChallenge() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        let response = try await Provider<MCP>().request(MCP(baseURL: server.resource))
        #expect(response.statusCode == 401)
        let (resource, authorizationServer) = try await OAuthDiscovery()
            .authorizationServer(forResourceChallengedBy: response)
        #expect(resource.resource == server.resource)
        #expect(resource.authorizationServers == [server.issuer])
        #expect(authorizationServer.tokenEndpoint == server.issuer.appendingPathComponent("token"))
    }

    @Test("resource metadata that describes another resource is refused")
    func anotherResource() async throws {
        let server = try await OAuthTestServer.start()
        defer { server.stop() }
        try await server.configure(["resource_override": "https://elsewhere.example.com/mcp"])
        let response = try await Provider<MCP>().request(MCP(baseURL: server.resource))
        await #expect(throws: OAuthDiscoveryError.self) {
            try await OAuthDiscovery().protectedResource(challengedBy: response)
        }
    }
}
