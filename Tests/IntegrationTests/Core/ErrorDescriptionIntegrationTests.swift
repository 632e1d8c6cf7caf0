import Courier
import CourierPlugins
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a developer reads when a request fails against a real server: the request, the
/// status and the server's own reason, with no secret.
@Suite("Error descriptions against the test server", .timeLimit(.minutes(20)))
struct ErrorDescriptionIntegrationTests {
    let server: TestServer

    init() async throws {
        server = try await TestServer.start()
    }

    @Test("a wrong password: POST, the token URL, 400, invalid_grant and its description; no password")
    func wrongPassword() async throws {
        defer { server.stop() }
        let target = ServerAPI(
            server, "oauth/token", method: .post,
            task: .requestParameters(
                parameters: ["grant_type": "password", "username": "bad", "password": "hunter2-SECRET"],
                encoding: URLEncoding.httpBody),
            authorizationType: nil)
        let response = try await Provider<ServerAPI>().request(target)

        #expect(throws: CourierError.self) { try OAuthToken(response: response) }
        do {
            _ = try OAuthToken(response: response)
        } catch {
            let port = server.baseURL.port ?? 0
            #expect(
                error.description
                    == "POST http://127.0.0.1:\(port)/oauth/token got status 400 (bad request), not in the accepted range 2xx. The server says: invalid_grant: wrong username or password."
            )
            #expect(!error.localizedDescription.contains("hunter2"))
        }
    }

    @Test("a 401 from a protected route: the request, the status, invalid_token; the token and query redacted")
    func rejectedToken() async throws {
        defer { server.stop() }
        var target = ServerAPI(
            server, "api/me",
            task: .requestParameters(parameters: ["access_token": "q-SECRET"], encoding: URLEncoding.queryString),
            headers: ["Authorization": "Bearer at-SECRET", "X-Api-Key": "key-SECRET"])
        target.validationType = .successCodes
        do {
            _ = try await Provider<ServerAPI>().request(target)
            Issue.record("an invalid token was accepted")
        } catch {
            let port = server.baseURL.port ?? 0
            #expect(
                error.description
                    == "GET http://127.0.0.1:\(port)/api/me?access_token=<redacted> got status 401 (unauthorized), not in the accepted range 2xx. The server says: invalid_token."
            )
            var dumped = ""
            dump(error, to: &dumped)
            for secret in ["q-SECRET", "at-SECRET", "key-SECRET"] {
                #expect(!dumped.contains(secret), "\(dumped)")
                #expect(!error.description.contains(secret))
            }
            #expect(dumped.contains(#"error=\\\"invalid_token\\\""#))
        }
    }
}
