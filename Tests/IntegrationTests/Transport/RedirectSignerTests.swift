import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `TransportRequest.redirectSigner` on every transport: called for each redirect hop to the
/// same origin, with the hop's request (its URL, its method after the redirect rules) and the
/// 3xx; what it returns is what is sent; `nil` makes the 3xx the answer; a hop to another origin
/// never reaches it. What DPoP's proof per hop is built on.
@Suite("Transports call the redirect signer for same-origin hops", .timeLimit(.minutes(20)))
struct RedirectSignerTests {
    struct Echo: Decodable {
        let method: String
        let path: String
        let headers: [String: String]
        let bodyLength: Int

        enum CodingKeys: String, CodingKey {
            case method, path, headers
            case bodyLength = "body_length"
        }
    }

    /// The hops a signer saw: each hop's URL path, method and the status that led there.
    final class Calls: Sendable {
        let seen = LockIsolated<[(path: String, method: String, status: Int)]>([])

        func signer(stamping: Bool = true, refusing: Bool = false) -> TransportRequest.RedirectSigner {
            { next, redirect in
                let count = self.seen.withValue { seen in
                    seen.append((next.url?.path ?? "", next.httpMethod ?? "GET", redirect.statusCode))
                    return seen.count
                }
                if refusing { return nil }
                var signed = next
                if stamping { signed.setValue("hop-\(count)", forHTTPHeaderField: "X-Hop-Proof") }
                return signed
            }
        }
    }

    static func request(_ url: URL, method: String = "GET", body: Data? = nil) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("hop-0", forHTTPHeaderField: "X-Hop-Proof")
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        return request
    }

    @Test("two same-origin hops: the signer makes each hop's request", arguments: TransportUnderTest.allCases)
    func sameOriginHops(_ kind: TransportUnderTest) async throws {
        let server = try await SharedServer.get()
        let calls = Calls()
        let original = Self.request(server.url("/redirect-same/redirect-same/echo"))
        let response = try await kind.make().send(
            TransportRequest(urlRequest: original, redirectSigner: calls.signer()))
        #expect(response.statusCode == 200)
        let echo = try response.map(Echo.self)
        #expect(echo.path == "/echo")
        #expect(echo.headers["x-hop-proof"] == "hop-2", "the last hop carries what the signer made for it")
        #expect(calls.seen.value.map(\.path) == ["/redirect-same/echo", "/echo"])
        #expect(calls.seen.value.map(\.status) == [302, 302])
        #expect(response.request?.url == original.url, "the response names the request as sent by the caller")
        #expect(response.metrics?.redirectCount == 2)
    }

    @Test("a 303 after a POST: the signer sees the GET without a body", arguments: TransportUnderTest.allCases)
    func seeOther(_ kind: TransportUnderTest) async throws {
        let server = try await SharedServer.get()
        let calls = Calls()
        let original = Self.request(
            server.url("/redirect?status=303&to=/echo"), method: "POST", body: Data(#"{"a":1}"#.utf8))
        let response = try await kind.make().send(
            TransportRequest(urlRequest: original, redirectSigner: calls.signer()))
        let echo = try response.map(Echo.self)
        #expect(echo.method == "GET")
        #expect(echo.bodyLength == 0)
        #expect(echo.headers["x-hop-proof"] == "hop-1")
        #expect(calls.seen.value.map(\.method) == ["GET"])
        #expect(calls.seen.value.map(\.status) == [303])
    }

    @Test("a 307 keeps the method and body; the signer sees them", arguments: TransportUnderTest.allCases)
    func temporaryRedirect(_ kind: TransportUnderTest) async throws {
        let server = try await SharedServer.get()
        let calls = Calls()
        let original = Self.request(
            server.url("/redirect?status=307&to=/echo"), method: "PUT", body: Data(#"{"a":1}"#.utf8))
        let response = try await kind.make().send(
            TransportRequest(urlRequest: original, redirectSigner: calls.signer()))
        let echo = try response.map(Echo.self)
        #expect(echo.method == "PUT")
        #expect(echo.bodyLength == 7)
        #expect(echo.headers["x-hop-proof"] == "hop-1")
        #expect(calls.seen.value.map(\.method) == ["PUT"])
    }

    @Test(
        "a signer that makes no request: the 3xx is the answer, nothing more is sent",
        arguments: TransportUnderTest.allCases)
    func refusal(_ kind: TransportUnderTest) async throws {
        let server = try await SharedServer.get()
        let calls = Calls()
        let original = Self.request(server.url("/redirect-same/echo"))
        let response = try await kind.make().send(
            TransportRequest(urlRequest: original, redirectSigner: calls.signer(refusing: true)))
        #expect(response.statusCode == 302)
        #expect(calls.seen.value.count == 1)
        #expect(response.request?.url == original.url)
    }

    @Test(
        "a hop to another origin never reaches the signer, and carries no credential",
        arguments: TransportUnderTest.allCases)
    func otherOrigin(_ kind: TransportUnderTest) async throws {
        let server = try await SharedServer.get()
        let calls = Calls()
        var other = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
        other.host = "localhost"
        other.path = "/echo"
        var target = URLComponents(url: server.url("/redirect"), resolvingAgainstBaseURL: false)!
        target.queryItems = [URLQueryItem(name: "to", value: other.url!.absoluteString)]
        var original = Self.request(target.url!)
        original.setValue("DPoP at-secret", forHTTPHeaderField: "Authorization")
        original.setValue("proof", forHTTPHeaderField: "DPoP")
        let response = try await kind.make().send(
            TransportRequest(urlRequest: original, redirectSigner: calls.signer()))
        let echo = try response.map(Echo.self)
        #expect(echo.headers["authorization"] == nil)
        #expect(echo.headers["dpop"] == nil)
        #expect(echo.headers["x-hop-proof"] == "hop-0", "sent as it was, unsigned")
        #expect(calls.seen.value.isEmpty)
    }
}
