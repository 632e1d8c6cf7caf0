// Compiled only with the OpenSSLSigning trait (see Package.swift); empty without it.
#if OpenSSLSigning

import Courier
import CourierOpenSSL
import CourierTesting
import CourierTestServer
import CourierTestServerTargets
import Foundation
import Testing

#if CurlTransport
import CourierCurl
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a DPoP proof made for one request must not serve another: a redirect within the API
/// (each hop needs a proof of its own URL and method, with the origin's nonce — RFC 9449 §4.2,
/// §4.3), and a server whose nonces are good for one proof each, met by many requests at once
/// (each retry must carry its own challenge's nonce). Against the test server's DPoP mode,
/// which checks every proof with Python's `cryptography`, on every transport.
@Suite("DPoP across redirects and with single-use nonces", .timeLimit(.minutes(20)))
struct DPoPRedirectAndNonceTests {
    /// The test server's redirecting API route, `/api/dpop-redirect/<status>/items`.
    struct RedirectAPI: TargetType {
        let base: URL
        var status = 307
        var method: HTTPMethod = .post
        var to = "items"
        var path: String { "api/dpop-redirect/\(status)/\(to)" }
        var baseURL: URL { base }
        var task: RequestTask {
            method == .get
                ? .requestPlain
                : .requestParameters(parameters: ["name": "n"], encoding: JSONEncoding.default)
        }
        var headers: [String: String]? { nil }
    }

    /// The test server's `/redirect?to=<url>`: a redirect to wherever `to` says.
    struct AnywhereRedirect: TargetType {
        let base: URL
        let to: URL
        var baseURL: URL { base }
        var path: String { "redirect" }
        var method: HTTPMethod { .get }
        var task: RequestTask {
            .requestParameters(parameters: ["to": to.absoluteString], encoding: URLEncoding.queryString)
        }
        var headers: [String: String]? { nil }
    }

    struct Echo: Decodable {
        let path: String
        let method: String
    }

    static func transports() -> [(String, any HTTPTransport)] {
        var transports: [(String, any HTTPTransport)] = [("URLSessionTransport", URLSessionTransport())]
        #if CurlTransport
        transports.append(("CurlTransport", CurlTransport()))
        #endif
        return transports
    }

    /// A fixture whose API (and token endpoint) gives single-use nonces, signed in.
    static func singleUseFixture() async throws -> (DPoPSessionTests.Fixture, AuthSession) {
        let fixture = try await DPoPSessionTests.Fixture(nonces: true)
        var changes = TestServerConfig()
        changes.dpop = .init(singleUseNonces: true)
        try await fixture.server.configure(changes)
        let session = fixture.session()
        try await fixture.signIn(session)
        return (fixture, session)
    }

    @Test("a same-origin 307 and 303 get a proof per hop (its URL, its method, the 3xx's nonce): accepted")
    func sameOriginRedirects() async throws {
        for (name, transport) in Self.transports() {
            let (fixture, session) = try await Self.singleUseFixture()
            let provider = RefreshableProvider<RedirectAPI>(auth: session, transport: transport)
            for (status, sent, landed) in [(307, HTTPMethod.post, "POST"), (303, .post, "GET"), (307, .get, "GET")] {
                let before = try await fixture.server.counters()
                let response = try await provider.request(
                    RedirectAPI(base: fixture.server.baseURL, status: status, method: sent))
                #expect(response.statusCode == 200, "\(name): \(status) \(sent.rawValue)")
                let echo = try response.map(Echo.self)
                #expect(echo.path == "/api/items", "\(name)")
                #expect(echo.method == landed, "\(name): after a \(status)")
                #expect(response.metrics?.redirectCount == 1, "\(name)")
                let after = try await fixture.server.counters()
                #expect(after.dpopRedirectHops - before.dpopRedirectHops == 1, "\(name): the first hop's proof")
                #expect(after.protectedOK - before.protectedOK == 1, "\(name): the second hop's proof")
                #expect(after.dpopProofRejections == before.dpopProofRejections, "\(name): no proof refused")
                #expect(after.refreshGrants == before.refreshGrants, "\(name): no refresh")
            }
        }
    }

    @Test("two same-origin redirects in a row: three proofs, each accepted")
    func twoHops() async throws {
        for (name, transport) in Self.transports() {
            let (fixture, session) = try await Self.singleUseFixture()
            let provider = RefreshableProvider<RedirectAPI>(auth: session, transport: transport)
            let before = try await fixture.server.counters()
            let response = try await provider.request(
                RedirectAPI(base: fixture.server.baseURL, status: 308, method: .put, to: "dpop-redirect/307/items"))
            #expect(response.statusCode == 200, "\(name)")
            #expect(try response.map(Echo.self).method == "PUT", "\(name)")
            let after = try await fixture.server.counters()
            #expect(after.dpopRedirectHops - before.dpopRedirectHops == 2, "\(name)")
            #expect(after.dpopProofRejections == before.dpopProofRejections, "\(name)")
        }
    }

    @Test("a redirect to another origin carries neither the token nor a proof")
    func crossOrigin() async throws {
        for (name, transport) in Self.transports() {
            let (fixture, session) = try await Self.singleUseFixture()
            let provider = RefreshableProvider<AnywhereRedirect>(auth: session, transport: transport)
            var other = URLComponents(url: fixture.server.baseURL, resolvingAgainstBaseURL: false)!
            other.host = "localhost"
            other.path = "/api/items"
            let before = try await fixture.server.counters()
            let response = try await provider.request(AnywhereRedirect(base: fixture.server.baseURL, to: other.url!))
            #expect(response.statusCode == 401, "\(name): another origin, no credential")
            let after = try await fixture.server.counters()
            #expect(after.authHeadersSeen == before.authHeadersSeen, "\(name): no Authorization reached it")
            #expect(after.dpopProofRejections == before.dpopProofRejections, "\(name): no proof reached it")
            #expect(after.refreshGrants == before.refreshGrants, "\(name): no refresh for another origin's 401")
        }
    }

    @Test("16 concurrent requests, single-use nonces, 5 rounds: every retry uses its own challenge's nonce and passes")
    func singleUseNoncesUnderConcurrency() async throws {
        for (name, transport) in Self.transports() {
            let (fixture, session) = try await Self.singleUseFixture()
            let provider = RefreshableProvider<DPoPSessionTests.ItemsAPI>(auth: session, transport: transport)
            for round in 0..<5 {
                let before = try await fixture.server.counters()
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<16 { group.addTask { try await provider.request(fixture.list).statusCode } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 200, count: 16), "\(name), round \(round)")
                let after = try await fixture.server.counters()
                let challenges = after.dpopNonceChallenges - before.dpopNonceChallenges
                // Each request went out once, or twice when it met a challenge: never more.
                #expect(
                    after.protectedRequests - before.protectedRequests == 16 + challenges, "\(name), round \(round)")
                #expect(after.dpopProofRejections == before.dpopProofRejections)
                #expect(after.refreshGrants == before.refreshGrants, "a nonce challenge is never a refresh")
            }
            #expect(await !session.isSessionExpired)
        }
    }
}

#endif
