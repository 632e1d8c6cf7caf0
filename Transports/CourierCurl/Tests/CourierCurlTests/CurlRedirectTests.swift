// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import CourierCurl
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport follows redirects itself, with the rules browsers and URLSession use.
@Suite("CurlTransport follows redirects by the rules", .timeLimit(.minutes(20)))
struct CurlRedirectTests {
    let server: TestServer
    let transport = CurlTransport()

    init() async throws {
        server = try await SharedCurlServer.get()
    }

    /// `/redirect` to `to` with `status`.
    func redirect(_ status: Int, to target: String) -> URL {
        var components = URLComponents(url: server.url("redirect"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "to", value: target), URLQueryItem(name: "status", value: "\(status)"),
        ]
        return components.url!
    }

    @Test("a 303 turns a POST into a GET without its body")
    func seeOther() async throws {
        let echo = try await transport.send(
            redirect(303, to: server.url("echo").absoluteString), method: "POST",
            headers: ["Content-Type": "application/json"], body: Data(#"{"a":1}"#.utf8)
        ).echo()
        #expect(echo.method == "GET")
        #expect(echo.bodyLength == 0)
        #expect(echo.header("Content-Type") == nil)
    }

    @Test("a 301 or 302 turns a POST into a GET, as browsers do", arguments: [301, 302])
    func movedPost(status: Int) async throws {
        let echo = try await transport.send(
            redirect(status, to: server.url("echo").absoluteString), method: "POST", body: Data("x=1".utf8)
        ).echo()
        #expect(echo.method == "GET")
        #expect(echo.bodyLength == 0)
    }

    @Test(
        "a 307 or 308 keeps the method and sends the whole body again",
        arguments: [(307, "POST"), (308, "PUT"), (307, "PATCH")])
    func keepsMethodAndBody(status: Int, method: String) async throws {
        let body = Data(repeating: UInt8(ascii: "a"), count: 100_000)
        let echo = try await transport.send(
            redirect(status, to: server.url("echo").absoluteString), method: method,
            headers: ["Content-Type": "text/plain"], body: body
        ).echo()
        #expect(echo.method == method)
        #expect(echo.bodyLength == body.count)
        #expect(echo.header("Content-Type") == "text/plain")
    }

    @Test("a redirect to another origin drops Authorization, Cookie and Proxy-Authorization, and keeps the rest")
    func crossOrigin() async throws {
        let headers = [
            "Authorization": "Bearer secret", "Cookie": "session=secret", "Proxy-Authorization": "Basic c2VjcmV0",
            "X-Other": "kept",
        ]
        let cross = try await transport.send(
            redirect(307, to: "http://localhost:\(server.port)/echo"), headers: headers
        ).echo()
        #expect(cross.header("Authorization") == nil)
        #expect(cross.header("Cookie") == nil)
        #expect(cross.header("Proxy-Authorization") == nil)
        #expect(cross.header("X-Other") == "kept")

        let same = try await transport.send(redirect(302, to: server.url("echo").absoluteString), headers: headers)
            .echo()
        #expect(same.header("Authorization") == "Bearer secret")
        #expect(same.header("Cookie") == "session=secret")
    }

    @Test("the hop limit is configurable, and passing it is httpTooManyRedirects naming the URL")
    func hopLimit() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.maximumRedirects = 1
        let strict = CurlTransport(configuration: configuration)
        let twoHops = redirect(302, to: redirect(302, to: server.url("echo").absoluteString).absoluteString)
        await #expect {
            try await strict.send(twoHops)
        } throws: { error in
            let urlError = error as? URLError
            return urlError?.code == .httpTooManyRedirects && urlError?.failingURL != nil
        }
        #expect(try await strict.send(redirect(302, to: server.url("echo").absoluteString)).statusCode == 200)
    }

    @Test("a redirect to a scheme other than http(s) is not followed: the 3xx is the answer")
    func otherScheme() async throws {
        let response = try await transport.send(redirect(302, to: "file:///etc/passwd"))
        #expect(response.statusCode == 302)
        #expect(response.response?.value(forHTTPHeaderField: "Location") == "file:///etc/passwd")
    }

    @Test(
        "a 307 or 308 whose body carries a credential is not taken to another origin: the 3xx is the answer, with its metrics",
        arguments: [307, 308])
    func credentialBodyStays(status: Int) async throws {
        let key = "curl-credential-\(UUID().uuidString)"
        // localhost is another origin than 127.0.0.1, on the same server.
        let elsewhere = "http://localhost:\(server.port)/hostile/seen/\(key)"
        let body = Data("grant_type=refresh_token&refresh_token=SECRET-RT".utf8)
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        let response = try await transport.send(
            redirect(status, to: elsewhere), method: "POST", headers: form, body: body)
        #expect(response.statusCode == status)
        #expect(response.response?.value(forHTTPHeaderField: "Location") == elsewhere)
        #expect(response.metrics?.redirectCount == 0)
        #expect(response.metrics?.bytesSent == Int64(body.count))
        let counts = try await transport.send(server.url("hostile/count/\(key)")).data
        let seen = try #require(try JSONSerialization.jsonObject(with: counts) as? [String: Int])
        #expect(seen["requests"] == 0, "the credential reached the other origin")

        // The same body to the same origin is followed.
        let same = try await transport.send(
            redirect(status, to: server.url("echo").absoluteString), method: "POST", headers: form, body: body)
        #expect(try same.echo().body == String(decoding: body, as: UTF8.self))
        #expect(same.metrics?.redirectCount == 1)
    }

    @Test("a redirect whose body never ends is followed all the same, promptly, without reading it all")
    func endlessRedirectBody() async throws {
        let hostile = try await ScriptServer.start(
            "hostile_redirect.py", arguments: [server.url("echo").absoluteString])
        defer { hostile.stop() }
        let port = try #require(hostile.readyLine.count == 2 ? Int(hostile.readyLine[1]) : nil)
        // A transport that read the redirect's body to its end would never get here (the
        // suite's time limit would end the test).
        let echo = try await transport.send(URL(string: "http://127.0.0.1:\(port)/start")!).echo()
        #expect(echo.path == "/echo")
    }
}

#endif
