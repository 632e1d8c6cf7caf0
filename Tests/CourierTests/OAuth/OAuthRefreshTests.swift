import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built-in refresh's token request, against a scripted token endpoint.
@Suite("OAuth built-in refresh", .timeLimit(.minutes(20)))
struct OAuthRefreshTests {
    static let metadata = AuthorizationServerMetadata(
        issuer: URL(string: "https://auth.example.com")!, tokenEndpoint: URL(string: "https://auth.example.com/token")!)

    func fields(of request: URLRequest?) -> [String: [String]] {
        let body = String(decoding: request?.httpBody ?? Data(), as: UTF8.self)
        var fields: [String: [String]] = [:]
        for item in URLComponents(string: "?" + body)?.queryItems ?? [] {
            fields[item.name, default: []].append(item.value ?? "")
        }
        return fields
    }

    @Test(
        "the session refreshes with the refresh_token grant, client_secret_post and every resource, and keeps the rotated token"
    )
    func refreshGrant() async throws {
        let transport = ScriptedTransport()
        transport.enqueue(
            .json(#"{"access_token":"at-2","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-2"}"#),
            for: .post("/token"))
        let client = OAuthClient(
            metadata: Self.metadata, clientID: "svc", authentication: .clientSecretPost("shh"), transport: transport)
        let resources = [URL(string: "https://a.example.com/")!, URL(string: "https://b.example.com/")!]
        let store = InMemoryTokenStore(
            OAuthToken(accessToken: "at-1", refreshToken: "rt-1", expiresAt: Date() - 1, issuedAt: Date() - 3601))
        let session = AuthSession(client: client, store: store, resources: resources, refreshTimeout: 60)
        let token = try await session.validToken()
        #expect(token.accessToken == "at-2")
        #expect(store.load()?.refreshToken == "rt-2")
        let sent = fields(of: transport.lastRequest)
        #expect(sent["grant_type"] == ["refresh_token"])
        #expect(sent["refresh_token"] == ["rt-1"])
        #expect(sent["resource"] == resources.map(\.absoluteString))
        #expect(sent["client_id"] == ["svc"])
        #expect(sent["client_secret"] == ["shh"])
    }

    @Test("a token without a refresh token ends the session without a request")
    func noRefreshToken() async throws {
        let transport = ScriptedTransport()
        let client = OAuthClient(metadata: Self.metadata, clientID: "svc", transport: transport)
        let session = AuthSession(
            client: client,
            store: InMemoryTokenStore(OAuthToken(accessToken: "at-1", refreshToken: nil, expiresAt: Date() - 1)),
            refreshTimeout: 60)
        await #expect(throws: AuthenticationError.sessionExpired) { try await session.validToken() }
        #expect(transport.requestCount == 0)
    }
}
