import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Discovery's checks, each against a scripted server: what a client relies on before it sends
/// a person or a secret anywhere.
@Suite("OAuth discovery", .timeLimit(.minutes(20)))
struct OAuthDiscoveryTests {
    static let issuer = URL(string: "https://auth.example.com")!

    static func metadataJSON(
        issuer: String = "https://auth.example.com", token: String = "https://auth.example.com/token"
    )
        -> String
    {
        """
        {"issuer":"\(issuer)","authorization_endpoint":"https://auth.example.com/authorize",
         "token_endpoint":"\(token)","code_challenge_methods_supported":["S256"],
         "authorization_response_iss_parameter_supported":true,"future_field":{"x":1}}
        """
    }

    @Test("the RFC 8414 document is read, its fields decoded, and unknown fields ignored")
    func readsRFC8414Document() async throws {
        let transport = ScriptedTransport()
        transport.always(.json(Self.metadataJSON()), for: .get("/.well-known/oauth-authorization-server"))
        let metadata = try await OAuthDiscovery(transport: transport).authorizationServer(issuer: Self.issuer)
        #expect(metadata.tokenEndpoint == URL(string: "https://auth.example.com/token"))
        #expect(metadata.authorizationEndpoint == URL(string: "https://auth.example.com/authorize"))
        #expect(metadata.codeChallengeMethodsSupported == ["S256"])
        #expect(metadata.authorizationResponseIssParameterSupported)
        #expect(!metadata.requirePushedAuthorizationRequests)
    }

    @Test("an issuer with a path: the well-known segment goes before the path, then OpenID's forms follow")
    func metadataURLsForAPathIssuer() {
        let urls = OAuthDiscovery.metadataURLs(issuer: URL(string: "https://example.com/tenant/1/")!)
        #expect(
            urls.map(\.absoluteString) == [
                "https://example.com/.well-known/oauth-authorization-server/tenant/1",
                "https://example.com/tenant/1/.well-known/openid-configuration",
                "https://example.com/.well-known/openid-configuration/tenant/1",
            ])
    }

    @Test("a server without RFC 8414's document is found through openid-configuration")
    func fallsBackToOpenIDConfiguration() async throws {
        let transport = ScriptedTransport()
        transport.always(
            .json(#"{"error":"not found"}"#, statusCode: 404), for: .get("/.well-known/oauth-authorization-server"))
        transport.always(.json(Self.metadataJSON()), for: .get("/.well-known/openid-configuration"))
        let metadata = try await OAuthDiscovery(transport: transport).authorizationServer(issuer: Self.issuer)
        #expect(metadata.issuer == Self.issuer)
        #expect(transport.requestCount == 2)
    }

    @Test("metadata naming another issuer is refused, and the error names both")
    func refusesAnotherIssuer() async throws {
        let transport = ScriptedTransport()
        transport.always(
            .json(Self.metadataJSON(issuer: "https://evil.example.net")),
            for: .get("/.well-known/oauth-authorization-server"))
        let error = await #expect(throws: OAuthDiscoveryError.self) {
            try await OAuthDiscovery(transport: transport).authorizationServer(issuer: Self.issuer)
        }
        guard case .issuerMismatch(let expected, let found, _) = error else {
            Issue.record("expected issuerMismatch, got \(String(describing: error))")
            return
        }
        #expect(expected == Self.issuer)
        #expect(found == URL(string: "https://evil.example.net"))
        #expect(error.map { String(describing: $0) }?.contains("https://evil.example.net") == true)
    }

    @Test("plain http is refused for an issuer and for an endpoint, except on loopback")
    func requiresHTTPS() async throws {
        let transport = ScriptedTransport()
        transport.always(
            .json(Self.metadataJSON(token: "http://auth.example.com/token")),
            for: .get("/.well-known/oauth-authorization-server"))
        let discovery = OAuthDiscovery(transport: transport)
        await #expect(throws: OAuthDiscoveryError.self) {
            try await discovery.authorizationServer(issuer: URL(string: "http://auth.example.com")!)
        }
        #expect(transport.requestCount == 0)
        let error = await #expect(throws: OAuthDiscoveryError.self) {
            try await discovery.authorizationServer(issuer: Self.issuer)
        }
        guard case .insecureURL(_, let what) = error else {
            Issue.record("expected insecureURL, got \(String(describing: error))")
            return
        }
        #expect(what == "token_endpoint")
        #expect(OAuthURLPolicy.isAllowed(URL(string: "http://127.0.0.1:8080/x")!))
        #expect(OAuthURLPolicy.isAllowed(URL(string: "http://[::1]:8080/x")!))
        #expect(OAuthURLPolicy.isAllowed(URL(string: "http://localhost/x")!))
        #expect(!OAuthURLPolicy.isAllowed(URL(string: "http://127.0.0.1.example.com/x")!))
        #expect(!OAuthURLPolicy.isAllowed(URL(string: "ftp://auth.example.com")!))
    }

    @Test("an issuer with a query or a fragment is refused before anything is sent")
    func refusesMalformedIssuer() async {
        let transport = ScriptedTransport()
        let discovery = OAuthDiscovery(transport: transport)
        for text in ["https://auth.example.com?tenant=1", "https://auth.example.com#x", "https://u:p@auth.example.com"]
        {
            await #expect(throws: OAuthDiscoveryError.self) {
                try await discovery.authorizationServer(issuer: URL(string: text)!)
            }
        }
        #expect(transport.requestCount == 0)
    }

    @Test("a body that is not metadata is an unreadable-metadata error naming the URL")
    func unreadableMetadata() async {
        let transport = ScriptedTransport()
        transport.always(.text("<html>login</html>"), for: .get("/.well-known/oauth-authorization-server"))
        let error = await #expect(throws: OAuthDiscoveryError.self) {
            try await OAuthDiscovery(transport: transport).authorizationServer(issuer: Self.issuer)
        }
        guard case .unreadableMetadata(let url, _) = error else {
            Issue.record("expected unreadableMetadata, got \(String(describing: error))")
            return
        }
        #expect(url.path == "/.well-known/oauth-authorization-server")
    }

    @Test("a document is fetched once for many concurrent callers and cached until its lifetime ends")
    func cachesAndSharesOneFetch() async throws {
        let transport = ScriptedTransport()
        transport.always(.json(Self.metadataJSON()), for: .get("/.well-known/oauth-authorization-server"))
        let clock = LockIsolated(Date(timeIntervalSince1970: 1_000_000))
        let discovery = OAuthDiscovery(transport: transport, cacheLifetime: 60, now: { clock.value })
        try await withThrowingTaskGroup(of: AuthorizationServerMetadata.self) { group in
            for _ in 0..<50 { group.addTask { try await discovery.authorizationServer(issuer: Self.issuer) } }
            for try await metadata in group { #expect(metadata.issuer == Self.issuer) }
        }
        #expect(transport.requestCount == 1)
        clock.withValue { $0 += 61 }
        _ = try await discovery.authorizationServer(issuer: Self.issuer)
        #expect(transport.requestCount == 2)
    }

    @Test("a failed fetch is not cached: the next call asks again")
    func failureIsNotCached() async throws {
        let transport = ScriptedTransport()
        transport.enqueue(.status(503), for: .get("/.well-known/oauth-authorization-server"))
        transport.always(.json(Self.metadataJSON()), for: .get("/.well-known/oauth-authorization-server"))
        let discovery = OAuthDiscovery(transport: transport)
        await #expect(throws: OAuthDiscoveryError.self) { try await discovery.authorizationServer(issuer: Self.issuer) }
        let metadata = try await discovery.authorizationServer(issuer: Self.issuer)
        #expect(metadata.issuer == Self.issuer)
    }
}
