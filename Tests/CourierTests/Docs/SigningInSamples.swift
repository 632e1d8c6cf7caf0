// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import Foundation

// The samples of SigningIn.md, kept in sync by DocSamplesSyncTests; compiled, not run (they
// reach auth.example.com). The OAuth suites run the same calls against authlib.

enum SigningInSamples {  // sample scaffold
    func discoverServer() async throws -> AuthorizationServerMetadata {
        let discovery = OAuthDiscovery()
        return try await discovery.authorizationServer(issuer: URL(string: "https://auth.example.com")!)
    }

    func discoverFromResource(_ response: Response) async throws -> (URL, AuthorizationServerMetadata) {
        let (resource, server) = try await OAuthDiscovery().authorizationServer(forResourceChallengedBy: response)
        return (resource.resource, server)
    }

    func signInFromTerminal(server: AuthorizationServerMetadata, tokenFile: URL) async throws -> AuthSession {
        let client = OAuthClient(metadata: server, clientID: "my-cli")
        let session = AuthSession(client: client, store: FileTokenStore(url: tokenFile))
        let token = try await client.authorizeWithLoopback(scopes: ["read"]) { url in
            print("Open this page to sign in:\n\(url)")
        }
        try await session.signIn(token)
        return session
    }

    func serviceSession(server: AuthorizationServerMetadata, secret: String) -> AuthSession {
        let client = OAuthClient(metadata: server, clientID: "billing", authentication: .clientSecretBasic(secret))
        return AuthSession(clientCredentialsOf: client, scopes: ["invoices"])
    }
}  // sample scaffold
