import CourierTesting
import Foundation
import Testing

@testable import Courier

/// From a resource's 401 to its authorization server (RFC 9728), against a scripted server.
@Suite("Protected resource discovery", .timeLimit(.minutes(20)))
struct ProtectedResourceDiscoveryTests {
    struct Resource: TargetType {
        var baseURL: URL { URL(string: "https://mcp.example.com")! }
        var path: String { "mcp/v1" }
        var method: HTTPMethod { .post }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    static let challenge =
        #"Bearer error="invalid_token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#

    /// The resource's answer to a first request, as the app's provider hands it back.
    static func challengedResponse(_ transport: ScriptedTransport, header: String = challenge) async throws -> Response
    {
        transport.enqueue(
            .json(#"{"error":"invalid_token"}"#, statusCode: 401, headers: ["WWW-Authenticate": header]),
            for: .post("/mcp/v1"))
        return try await Provider<Resource>(transport: transport).request(Resource())
    }

    static func scriptMetadata(_ transport: ScriptedTransport, resource: String = "https://mcp.example.com/mcp") {
        transport.always(
            .json(
                #"{"resource":"\#(resource)","authorization_servers":["https://auth.example.com"],"scopes_supported":["read"]}"#
            ),
            for: .get("/.well-known/oauth-protected-resource/mcp"))
        transport.always(
            .json(OAuthDiscoveryTests.metadataJSON()), for: .get("/.well-known/oauth-authorization-server"))
    }

    @Test("a 401 naming resource_metadata leads to the resource's metadata and its authorization server")
    func followsTheChallenge() async throws {
        let transport = ScriptedTransport()
        Self.scriptMetadata(transport)
        let response = try await Self.challengedResponse(transport)
        let (resource, server) = try await OAuthDiscovery(transport: transport)
            .authorizationServer(forResourceChallengedBy: response)
        #expect(resource.resource == URL(string: "https://mcp.example.com/mcp"))
        #expect(resource.scopesSupported == ["read"])
        #expect(server.issuer == URL(string: "https://auth.example.com"))
        #expect(server.tokenEndpoint == URL(string: "https://auth.example.com/token"))
    }

    @Test("metadata describing another resource is refused (RFC 9728 §3.3)")
    func refusesAnotherResource() async throws {
        let transport = ScriptedTransport()
        Self.scriptMetadata(transport, resource: "https://other.example.com/mcp")
        let response = try await Self.challengedResponse(transport)
        let error = await #expect(throws: OAuthDiscoveryError.self) {
            try await OAuthDiscovery(transport: transport).protectedResource(challengedBy: response)
        }
        guard case .resourceMismatch(_, let found, _) = error else {
            Issue.record("expected resourceMismatch, got \(String(describing: error))")
            return
        }
        #expect(found == URL(string: "https://other.example.com/mcp"))
    }

    @Test("a 401 without resource_metadata, or a 200, says there is nothing to follow")
    func noChallenge() async throws {
        let transport = ScriptedTransport()
        let response = try await Self.challengedResponse(transport, header: #"Bearer realm="x", error="invalid_token""#)
        let error = await #expect(throws: OAuthDiscoveryError.self) {
            try await OAuthDiscovery(transport: transport).protectedResource(challengedBy: response)
        }
        guard case .noResourceMetadataChallenge(let status, _) = error else {
            Issue.record("expected noResourceMetadataChallenge, got \(String(describing: error))")
            return
        }
        #expect(status == 401)
    }

    @Test("resource_metadata on plain http to a public host is refused before it is fetched")
    func insecureMetadataURL() async throws {
        let transport = ScriptedTransport()
        let response = try await Self.challengedResponse(
            transport,
            header: #"Bearer resource_metadata="http://mcp.example.com/.well-known/oauth-protected-resource""#)
        await #expect(throws: OAuthDiscoveryError.self) {
            try await OAuthDiscovery(transport: transport).protectedResource(challengedBy: response)
        }
        #expect(transport.requestCount == 1)
    }

    @Test("a resource covers its own URL and the paths below it, on its origin only")
    func resourceCoverage() {
        let resource = URL(string: "https://mcp.example.com/mcp")!
        #expect(OAuthDiscovery.resource(resource, covers: URL(string: "https://mcp.example.com/mcp")!, exact: false))
        #expect(
            OAuthDiscovery.resource(resource, covers: URL(string: "https://mcp.example.com/mcp/v1?x=1")!, exact: false))
        #expect(!OAuthDiscovery.resource(resource, covers: URL(string: "https://mcp.example.com/mcpx")!, exact: false))
        #expect(
            !OAuthDiscovery.resource(resource, covers: URL(string: "https://mcp.example.com:8443/mcp")!, exact: false))
        #expect(!OAuthDiscovery.resource(resource, covers: URL(string: "https://mcp.example.com/mcp/v1")!, exact: true))
        #expect(
            OAuthDiscovery.resource(
                URL(string: "https://mcp.example.com")!, covers: URL(string: "https://mcp.example.com/a")!, exact: false
            ))
    }
}
