import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Credentials stay with their origin, and a redirect never delivers a request without its body.
extension HostileServerTests {
    // MARK: - Credentials stay with their origin

    @Test(
        "a redirect to another origin drops Authorization, Proxy-Authorization, Cookie and every credential-looking header; the same origin keeps them",
        arguments: TransportUnderTest.allCases)
    func redirectDropsCredentials(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        let headers = [
            "Authorization": "Bearer secret-token", "Proxy-Authorization": "Basic cHJveHk6cHc=",
            "Cookie": "session=secret-cookie", "X-Api-Key": "secret-key", "X-Auth-Token": "secret-auth",
            "X-Other": "kept",
        ]
        let crossHost = "http://localhost:\(server.port)/echo"
        let cross = try await provider.request(
            ServerAPI(
                server, "redirect",
                task: .requestParameters(parameters: ["to": crossHost], encoding: URLEncoding.queryString),
                headers: headers)
        ).echo()
        #expect(cross.header("Host")?.hasPrefix("localhost") == true)
        #expect(cross.header("Authorization") == nil)
        #expect(cross.header("Proxy-Authorization") == nil)
        #expect(cross.header("Cookie") == nil)
        #expect(cross.header("X-Api-Key") == nil)
        #expect(cross.header("X-Auth-Token") == nil)
        #expect(cross.header("X-Other") == "kept")

        let same = try await provider.request(ServerAPI(server, "redirect-same/echo", headers: headers)).echo()
        #expect(same.header("Authorization") == "Bearer secret-token")
        #expect(same.header("Proxy-Authorization") == "Basic cHJveHk6cHc=")
        #expect(same.header("Cookie") == "session=secret-cookie")
        #expect(same.header("X-Api-Key") == "secret-key")
    }

    @Test(
        "a redirect to a scheme other than http or https is not followed: the 3xx is the response",
        arguments: TransportUnderTest.allCases, ["ftp://127.0.0.1:1/x", "gopher://127.0.0.1:1/x"])
    func redirectToOtherScheme(_ kind: TransportUnderTest, location: String) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 10))
        let response = try await provider.request(
            ServerAPI(
                server, "redirect",
                task: .requestParameters(parameters: ["to": location], encoding: URLEncoding.queryString)))
        #expect(response.statusCode == 302)
        #expect(response.response?.value(forHTTPHeaderField: "Location") == location)
        #expect(!String(decoding: response.data, as: UTF8.self).contains("root:"))
    }

    @Test(
        "a 307 or 308 never delivers a request without its body: it is followed whole or comes back as the response",
        arguments: TransportUnderTest.allCases, [307, 308])
    func bodyPreservingRedirect(_ kind: TransportUnderTest, status: Int) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 10))
        let body = Data(#"{"amount":100}"#.utf8)
        let response = try await provider.request(
            ServerAPI(
                server, "redirect", method: .post,
                task: .requestCompositeData(bodyData: body, urlParameters: ["to": "/echo", "status": status]),
                headers: ["Content-Type": "application/json"]))

        if response.statusCode == status {
            #expect(response.response?.value(forHTTPHeaderField: "Location") == "/echo")
        } else {
            let echo = try response.echo()
            #expect(echo.method == "POST")
            #expect(echo.bodyLength == body.count, "the redirected POST lost its body")
        }
        // A request without a body is still followed.
        let plain = try await provider.request(
            ServerAPI(server, "redirect", task: query(["to": "/echo", "status": status])))
        #expect(plain.statusCode == 200)
    }
}
