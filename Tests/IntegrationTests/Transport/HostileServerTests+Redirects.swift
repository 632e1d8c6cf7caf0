import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Credentials stay with their origin, and a redirect never delivers a request without its body.
extension HostileServerTests {
    /// A second server: another origin (another port) for the cross-origin redirects.
    private static let otherOrigin = Task { try await TestServer.start() }

    /// The credentials a request carries, in headers.
    static let credentialHeaders = [
        "Authorization": "Bearer secret-token", "Proxy-Authorization": "Basic cHJveHk6cHc=",
        "Cookie": "session=secret-cookie", "X-Api-Key": "secret-key", "X-Auth-Token": "secret-auth",
        "X-Other": "kept",
    ]

    /// `/redirect` to `location` with `status`, for `method` with `body`.
    func redirect(
        _ status: Int, to location: String, method: HTTPMethod = .get, body: Data? = nil,
        contentType: String = "application/json", headers: [String: String] = [:]
    ) -> ServerAPI {
        var allHeaders = headers
        if body != nil { allHeaders["Content-Type"] = contentType }
        let parameters: [String: any Sendable] = ["to": location, "status": status]
        let task: RequestTask =
            body.map { .requestCompositeData(bodyData: $0, urlParameters: parameters) } ?? query(parameters)
        return ServerAPI(server, "redirect", method: method, task: task, headers: allHeaders)
    }

    // MARK: - Credentials stay with their origin

    @Test(
        "a redirect to another origin drops Authorization, Proxy-Authorization, Cookie and every credential-looking header; the same origin keeps them",
        arguments: TransportUnderTest.allCases)
    func redirectDropsCredentials(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make())
        let headers = Self.credentialHeaders
        let crossHost = "http://localhost:\(server.port)/echo"
        let cross = try await provider.request(redirect(302, to: crossHost, headers: headers)).echo()
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

    /// The `Location`s of another scheme; `KEY` is replaced by a fresh key.
    static let otherSchemes = [
        "file:///hostile/seen/KEY", "data:/hostile/seen/KEY", "data:text/plain,KEY", "ftp://127.0.0.1:1/KEY",
        "gopher://127.0.0.1:1/KEY", "file:///etc/passwd",
    ]

    @Test(
        "a redirect to file:, data:, ftp: or any scheme but http(s) is not followed: the 3xx is the response, and nothing more is sent",
        arguments: TransportUnderTest.allCases, otherSchemes)
    func redirectToOtherScheme(_ kind: TransportUnderTest, template: String) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 10))
        let key = "scheme-\(UUID().uuidString)"
        let location = template.replacingOccurrences(of: "KEY", with: key)
        let response = try await provider.request(
            redirect(302, to: location, headers: ["Cookie": "sid=secret-cookie"]))

        #expect(response.statusCode == 302)
        #expect(response.response?.value(forHTTPHeaderField: "Location") == location)
        #expect(!String(decoding: response.data, as: UTF8.self).contains("root:"))
        // Nothing went to the same server under the Location's path (with the cookie).
        #expect(try await hostileCounts(key).requests == 0)
    }

    // MARK: - 307 and 308 keep the method and the body

    @Test(
        "a POST redirected 307 or 308 lands with its method and body: to the same origin with its credentials, to another port or host without them",
        arguments: TransportUnderTest.allCases, [307, 308])
    func bodyPreservingRedirect(_ kind: TransportUnderTest, status: Int) async throws {
        let other = try await Self.otherOrigin.value
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let body = Data(#"{"amount":100}"#.utf8)
        let targets = [
            ("/echo", true), ("http://127.0.0.1:\(other.port)/echo", false),
            ("http://localhost:\(server.port)/echo", false),
        ]
        for (location, sameOrigin) in targets {
            let response = try await provider.request(
                redirect(status, to: location, method: .post, body: body, headers: Self.credentialHeaders))
            #expect(response.statusCode == 200, "\(location)")
            let echo = try response.echo()
            #expect(echo.method == "POST")
            #expect(echo.body == String(decoding: body, as: UTF8.self), "the redirected POST lost its body")
            #expect(echo.header("Content-Type") == "application/json")
            #expect(echo.header("X-Other") == "kept")
            for name in ["Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Auth-Token"] {
                #expect((echo.header(name) != nil) == sameOrigin, "\(name) to \(location)")
            }
            // The response names what the caller sent, where the answer came from.
            #expect(response.request?.url?.path == "/redirect")
            #expect(response.response?.url?.path == "/echo")
        }
        // A request without a body is followed too.
        let plain = try await provider.request(
            ServerAPI(server, "redirect", task: query(["to": "/echo", "status": status])))
        #expect(plain.statusCode == 200)
    }

    @Test(
        "a 303 turns any request into a GET without its body; 301 and 302 turn a POST into a GET, and keep a PUT's body",
        arguments: TransportUnderTest.allCases)
    func methodChanges(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let body = Data(#"{"a":1}"#.utf8)
        for (status, method, expected, keepsBody) in [
            (303, HTTPMethod.post, "GET", false), (303, .put, "GET", false), (301, .post, "GET", false),
            (302, .post, "GET", false), (301, .put, "PUT", true), (302, .patch, "PATCH", true),
        ] {
            let echo = try await provider.request(redirect(status, to: "/echo", method: method, body: body)).echo()
            #expect(echo.method == expected, "\(status) \(method.rawValue)")
            #expect((echo.bodyLength == body.count) == keepsBody, "\(status) \(method.rawValue)")
            #expect((echo.header("Content-Type") != nil) == keepsBody, "\(status) \(method.rawValue)")
        }
    }

    @Test(
        "a POST redirected 307 to a server that drops it after its body is sent once there and fails as a lost connection",
        arguments: TransportUnderTest.allCases)
    func redirectedPostNotResent(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let key = "redirected-post-\(UUID().uuidString)"
        let result = await outcome(
            provider,
            redirect(307, to: "/hostile/drop-after-body/\(key)", method: .post, body: Data(#"{"amount":1}"#.utf8)))

        #expect(urlErrorCode(result) == .networkConnectionLost || urlErrorCode(result) == .badServerResponse)
        #expect(try await hostileCounts(key).completeBodies == 1)
    }

    @Test(
        "sixteen redirects are followed; the seventeenth fails with httpTooManyRedirects naming the request",
        arguments: TransportUnderTest.allCases)
    func hopLimit(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let sixteen = try await provider.request(ServerAPI(server, "hostile/redirect-chain/16")).echo()
        #expect(sixteen.path == "/hostile/redirect-chain/0")

        let result = await outcome(provider, ServerAPI(server, "hostile/redirect-chain/17"))
        #expect(urlErrorCode(result) == .httpTooManyRedirects, "\(result)")
        guard case .failure(let error) = result, let urlError = error.underlyingError as? URLError else { return }
        #expect(urlError.failingURL?.host == "127.0.0.1")
        #expect(urlError.failingURL?.path.hasPrefix("/hostile/redirect-chain/") == true)
    }

    // MARK: - A credential in the body stays with its origin

    /// Bodies that carry a credential, with their content types.
    static let credentialBodies: [(String, String)] = [
        ("application/x-www-form-urlencoded", "grant_type=refresh_token&refresh_token=SECRET-RT&client_id=app"),
        ("application/json", #"{"user":{"name":"ann","auth":{"client_secret":"SECRET-CS"}}}"#),
        ("application/json", #"{"query":"x","key":"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"}"#),
        (
            "multipart/form-data; boundary=XyZ",
            "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n"
                + "--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nSECRET-PW\r\n--XyZ--\r\n"
        ),
    ]

    @Test(
        "a body that carries a credential is not taken to another origin: the 307 or 308 is the response; the same origin gets it",
        arguments: TransportUnderTest.allCases, 0..<credentialBodies.count)
    func credentialBodyStaysWithOrigin(_ kind: TransportUnderTest, index: Int) async throws {
        let other = try await Self.otherOrigin.value
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let (contentType, text) = Self.credentialBodies[index]
        let body = Data(text.utf8)
        let key = "credential-body-\(UUID().uuidString)"
        for status in [307, 308] {
            let location = "http://127.0.0.1:\(other.port)/hostile/seen/\(key)"
            let response = try await provider.request(
                redirect(status, to: location, method: .post, body: body, contentType: contentType))
            #expect(response.statusCode == status)
            #expect(response.response?.value(forHTTPHeaderField: "Location") == location)

            let same = try await provider.request(
                redirect(status, to: "/echo", method: .post, body: body, contentType: contentType)
            ).echo()
            #expect(same.body == text)
        }
        let seen = try await Provider<ServerAPI>().request(
            ServerAPI(other, "hostile/count/\(key)")
        ).map(HostileCounts.self)
        #expect(seen.requests == 0, "the credential reached the other origin")
    }

    @Test(
        "a body without a credential follows a 307 to another origin, binary or JSON",
        arguments: TransportUnderTest.allCases)
    func plainBodyFollows(_ kind: TransportUnderTest) async throws {
        let other = try await Self.otherOrigin.value
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let bodies = [
            ("application/octet-stream", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })),
            ("application/json", Data(#"{"amount":100,"token_type":"bearer"}"#.utf8)),
        ]
        for (contentType, body) in bodies {
            let echo = try await provider.request(
                redirect(
                    307, to: "http://127.0.0.1:\(other.port)/echo", method: .post, body: body,
                    contentType: contentType)
            ).echo()
            #expect(echo.method == "POST")
            #expect(echo.bodyLength == body.count, "\(contentType)")
        }
    }

    @Test(
        "a body stream that can be read only once is never sent again: the 307 is the response (or the transport refuses the stream before sending)",
        arguments: TransportUnderTest.allCases)
    func oneShotStreamBody(_ kind: TransportUnderTest) async throws {
        let key = "stream-\(UUID().uuidString)"
        let provider = Provider<ServerAPI>(
            requestClosure: { endpoint in
                var request = try endpoint.urlRequest()
                request.httpBodyStream = InputStream(data: Data(#"{"amount":100}"#.utf8))
                return request
            }, transport: kind.make(timeout: 30))
        let result = await outcome(
            provider, redirect(307, to: "/hostile/seen/\(key)", method: .put, body: Data()))

        if case .success(let response) = result {
            #expect(response.statusCode == 307)
        }
        #expect(try await hostileCounts(key).requests == 0)
    }
}

/// A redirect's own body is never the answer.
extension HostileServerTests {
    @Test(
        "a redirect whose body is a gzip bomb is followed: its body is not the response's, nor held against the bound",
        arguments: TransportUnderTest.allCases)
    func redirectBodyBomb(_ kind: TransportUnderTest) async throws {
        // 2 MiB, eight times the bound: URLSession on Linux holds a redirect's body whole (and
        // copies it once per block) before the transport sees it, so it is kept small here.
        let provider = Provider<ServerAPI>(transport: kind.make(maximumResponseBodySize: 256 * 1024))
        let echo = try await provider.request(
            ServerAPI(
                server, "hostile/redirect-bomb/\(UUID().uuidString)",
                task: query(["size": 2 * 1024 * 1024, "to": "/echo"]))
        ).echo()
        #expect(echo.path == "/echo")
    }
}
