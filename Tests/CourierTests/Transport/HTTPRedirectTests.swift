import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The redirect rules of ``URLSessionTransport``, decided without a network.
@Suite("HTTPRedirect decides from the 3xx response's own Location")
struct HTTPRedirectTests {
    /// A request to `url` with `method`, `body` and `headers`.
    func hop(
        _ url: String, method: String = "GET", body: Data? = nil, contentType: String? = nil,
        headers: [String: String] = [:], transportBody: TransportRequest.Body = .inline
    ) -> TransportRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return TransportRequest(urlRequest: request, body: transportBody)
    }

    /// A `status` answer from `url` whose `Location` is `location`.
    func response(_ status: Int, location: String?, url: String = "https://api.example.com/v1/items") -> HTTPURLResponse
    {
        HTTPURLResponse(
            url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1",
            headerFields: location.map { ["Location": $0] } ?? [:])!
    }

    /// The request a decision follows with, or `nil` with the reason it did not.
    func next(_ decision: HTTPRedirect.Decision) -> TransportRequest? {
        if case .follow(let request) = decision { return request }
        return nil
    }

    func answer(_ decision: HTTPRedirect.Decision) -> HTTPRedirect.Answer? {
        if case .answer(let answer) = decision { return answer }
        return nil
    }

    @Test("only 301, 302, 303, 307 and 308 are followed; 300, 304, 305 and 306 are the answer")
    func followedCodes() {
        let request = hop("https://api.example.com/v1/items")
        for status in [301, 302, 303, 307, 308] {
            #expect(next(HTTPRedirect.decide(after: request, response: response(status, location: "/x"))) != nil)
        }
        for status in [200, 300, 304, 305, 306, 401] {
            #expect(
                answer(HTTPRedirect.decide(after: request, response: response(status, location: "/x"))) == .notARedirect
            )
        }
    }

    @Test("a relative Location is resolved against the request's URL as RFC 3986 says")
    func relativeLocations() throws {
        let request = hop("https://api.example.com/v1/items?page=2")
        let cases = [
            ("other", "https://api.example.com/v1/other"), ("../v2/items", "https://api.example.com/v2/items"),
            ("/root", "https://api.example.com/root"), ("?page=3", "https://api.example.com/v1/items?page=3"),
            ("//cdn.example.com/x", "https://cdn.example.com/x"),
        ]
        for (location, expected) in cases {
            let followed = try #require(
                next(HTTPRedirect.decide(after: request, response: response(302, location: location))))
            #expect(followed.urlRequest.url?.absoluteString == expected, "\(location)")
        }
    }

    @Test(
        "a Location of another scheme, or without a host, is the answer — never rewritten into a request to the same server",
        arguments: [
            "file:///etc/passwd", "data:text/plain,hello", "data:/echo", "ftp://example.com/x", "javascript:alert(1)",
            "gopher://example.com/", "http:relative", "https://", "mailto:a@example.com",
        ])
    func otherSchemes(location: String) {
        let decision = HTTPRedirect.decide(
            after: hop("http://127.0.0.1:8080/redirect", headers: ["Cookie": "sid=1"]),
            response: response(302, location: location, url: "http://127.0.0.1:8080/redirect"))
        #expect(answer(decision) == .unsupportedLocation)
    }

    @Test("a missing, empty or unreadable Location is the answer")
    func noLocation() {
        for location in [nil, "", "   ", "http://exa mple.com/"] {
            let decision = HTTPRedirect.decide(
                after: hop("https://a.example/"), response: response(302, location: location))
            #expect(answer(decision) == .noLocation, "\(String(describing: location))")
        }
    }

    @Test("307 and 308 keep the method, the body and its headers")
    func keepMethodAndBody() throws {
        let body = Data(#"{"amount":1}"#.utf8)
        for status in [307, 308] {
            let followed = try #require(
                next(
                    HTTPRedirect.decide(
                        after: hop(
                            "https://a.example/pay", method: "POST", body: body, contentType: "application/json"),
                        response: response(status, location: "/pay2"))))
            #expect(followed.urlRequest.httpMethod == "POST")
            #expect(followed.urlRequest.httpBody == body)
            #expect(followed.urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/json")
            #expect(!followed.isIdempotent)
        }
    }

    @Test("303 turns anything but HEAD into a GET without a body; 301 and 302 do so for a POST only")
    func methodChanges() throws {
        let body = Data("x=1".utf8)
        let cases: [(Int, String, String)] = [
            (303, "POST", "GET"), (303, "PUT", "GET"), (303, "DELETE", "GET"), (303, "HEAD", "HEAD"),
            (301, "POST", "GET"), (302, "POST", "GET"), (301, "PUT", "PUT"), (302, "DELETE", "DELETE"),
        ]
        for (status, method, expected) in cases {
            let followed = try #require(
                next(
                    HTTPRedirect.decide(
                        after: hop(
                            "https://a.example/x", method: method, body: body, contentType: "text/plain",
                            transportBody: .data(body)),
                        response: response(status, location: "/y"))))
            #expect(followed.urlRequest.httpMethod == expected, "\(status) \(method)")
            if expected == "GET" {
                #expect(followed.urlRequest.httpBody == nil)
                #expect(followed.urlRequest.value(forHTTPHeaderField: "Content-Type") == nil)
                #expect(!followed.body.isUpload)
                #expect(followed.isIdempotent)
            } else {
                #expect(followed.body.isUpload, "\(status) \(method) keeps its body")
                #expect(followed.urlRequest.value(forHTTPHeaderField: "Content-Type") == "text/plain")
            }
        }
    }

    @Test("another origin (host, port or https to http) loses every credential header; the same origin keeps them")
    func credentialHeaders() throws {
        let headers = [
            "Authorization": "Bearer t", "Cookie": "sid=1", "Proxy-Authorization": "Basic x", "X-Api-Key": "k",
            "X-Other": "kept",
        ]
        let request = hop("https://api.example.com/v1", method: "POST", headers: headers)
        for location in [
            "https://other.example.com/v1", "https://api.example.com:8443/v1", "http://api.example.com/v1",
        ] {
            let followed = try #require(
                next(HTTPRedirect.decide(after: request, response: response(307, location: location))))
            let sent = followed.urlRequest.allHTTPHeaderFields ?? [:]
            #expect(Set(sent.keys) == ["X-Other"], "\(location): \(sent.keys.sorted())")
        }
        for location in ["/v2", "https://API.example.com:443/v2"] {
            let followed = try #require(
                next(HTTPRedirect.decide(after: request, response: response(307, location: location))))
            #expect(followed.urlRequest.allHTTPHeaderFields?.count == headers.count, "\(location)")
        }
    }

    @Test("a body carrying a credential is not taken to another origin by a 307 or 308; a 303 drops it and goes")
    func credentialBody() throws {
        let body = Data("grant_type=password&username=ann&password=hunter2".utf8)
        for transportBody in [TransportRequest.Body.inline, .data(body)] {
            let request = hop(
                "https://api.example.com/oauth/token", method: "POST", body: body,
                contentType: "application/x-www-form-urlencoded", transportBody: transportBody)
            for status in [307, 308] {
                let cross = HTTPRedirect.decide(
                    after: request, response: response(status, location: "https://evil.example/"))
                #expect(answer(cross) == .credentialInBody)
                #expect(
                    next(HTTPRedirect.decide(after: request, response: response(status, location: "/token2"))) != nil)
            }
            let seeOther = try #require(
                next(HTTPRedirect.decide(after: request, response: response(303, location: "https://evil.example/"))))
            #expect(seeOther.urlRequest.httpBody == nil)
        }
    }

    @Test("a body file is examined as a body in memory is")
    func credentialFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("redirect-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"client_secret":"s3cr3t"}"#.utf8).write(to: file)
        let request = hop(
            "https://api.example.com/x", method: "PUT", contentType: "application/json", transportBody: .file(file))
        #expect(
            answer(HTTPRedirect.decide(after: request, response: response(308, location: "https://b.example/")))
                == .credentialInBody)
        #expect(next(HTTPRedirect.decide(after: request, response: response(308, location: "/y"))) != nil)
    }

    @Test("a stream body, readable once, is never sent again: a 307 of it is the answer, a 303 is followed without it")
    func oneShotStream() {
        var request = URLRequest(url: URL(string: "https://a.example/upload")!)
        request.httpMethod = "PUT"
        request.httpBodyStream = InputStream(data: Data("x".utf8))
        let streamed = TransportRequest(urlRequest: request)
        #expect(answer(HTTPRedirect.decide(after: streamed, response: response(307, location: "/y"))) == .oneShotBody)
        #expect(next(HTTPRedirect.decide(after: streamed, response: response(303, location: "/y"))) != nil)
    }
}
