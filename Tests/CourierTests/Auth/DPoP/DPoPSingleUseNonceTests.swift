import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A resource server whose nonces are good for one proof each (every answer gives a new one),
/// met by many requests at once: a retry after `use_dpop_nonce` must carry the nonce of its own
/// challenge — never one another request's challenge gave, nor one another retry used.
@Suite("DPoP retries with single-use nonces under concurrency", .timeLimit(.minutes(20)))
struct DPoPSingleUseNonceTests {
    typealias API = DPoPSessionSigningTests.API

    /// The server, as a transport: nonces given and not used yet; every answer gives a new one.
    /// The first attempts (no nonce yet) wait until `firstAttempts` of them have arrived, then
    /// are all challenged at once, so that their retries overlap — as 16 requests meeting a new
    /// nonce together do on a busy server.
    final class SingleUseServer: HTTPTransport {
        private struct State {
            var next = 0
            var outstanding: Set<String> = []
        }

        private let state = LockIsolated(State())
        private let arrived = CallCounter()
        let firstAttempts: Int
        let sent = CallCounter()

        init(firstAttempts: Int) {
            self.firstAttempts = firstAttempts
        }

        func send(_ request: TransportRequest) async throws -> Response {
            _ = sent.increment()
            let nonce = (try? DPoPSessionSigningTests.claims(of: request.urlRequest))?["nonce"] as? String
            if nonce == nil {
                _ = arrived.increment()
                _ = try await arrived.wait(forAtLeast: firstAttempts)
            }
            let (status, headers) = state.withValue { state -> (Int, [String: String]) in
                state.next += 1
                let fresh = "n-\(state.next)"
                state.outstanding.insert(fresh)
                if let nonce, state.outstanding.remove(nonce) != nil {
                    return (200, ["DPoP-Nonce": fresh])
                }
                return (401, ["WWW-Authenticate": #"DPoP error="use_dpop_nonce", algs="ES256""#, "DPoP-Nonce": fresh])
            }
            let url = try #require(request.urlRequest.url)
            let http = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
            return Response(statusCode: status, data: Data(), request: request.urlRequest, response: http)
        }
    }

    @Test(
        "16 concurrent requests challenged at once, 5 rounds: each retry carries its own challenge's nonce and passes")
    func concurrentRetries() async throws {
        for round in 0..<5 {
            let server = SingleUseServer(firstAttempts: 16)
            let refreshes = CallCounter()
            let provider = RefreshableProvider<API>(
                auth: try await DPoPSessionSigningTests.session(refreshes: refreshes), transport: server)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 { group.addTask { try await provider.request(API()).statusCode } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 16), "round \(round)")
            #expect(server.sent.value == 32, "round \(round): each request challenged once, retried once")
            #expect(refreshes.value == 0, "a nonce challenge is never a refresh")
        }
    }

    @Test("a retry signs with its challenge's nonce even when another challenge changed the origin's since")
    func ownChallengeNonce() async throws {
        let session = try await DPoPSessionSigningTests.session()
        let dpop = try #require(session.dpop)
        let url = URL(string: "https://api.example.com/items")!
        let first = try #require(
            HTTPURLResponse(
                url: url, statusCode: 401, httpVersion: "HTTP/1.1",
                headerFields: ["WWW-Authenticate": #"DPoP error="use_dpop_nonce""#, "DPoP-Nonce": "mine"]))
        let second = try #require(
            HTTPURLResponse(
                url: url, statusCode: 401, httpVersion: "HTTP/1.1",
                headerFields: ["WWW-Authenticate": #"DPoP error="use_dpop_nonce""#, "DPoP-Nonce": "theirs"]))
        let request = URLRequest(url: url)
        let mine = dpop.observe(.success(Response(statusCode: 401, data: Data(), request: request, response: first)))
        let theirs = dpop.observe(.success(Response(statusCode: 401, data: Data(), request: request, response: second)))
        #expect(mine == "mine")
        #expect(theirs == "theirs")
        #expect(dpop.nonces.nonce(for: url) == nil, "a challenge's nonce is its retry's until the retry went out")
        // The retry's answer carries no nonce: the challenge's becomes the origin's.
        let ok = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
        dpop.observe(
            .success(Response(statusCode: 200, data: Data(), request: request, response: ok)), answering: "mine")
        #expect(dpop.nonces.nonce(for: url) == "mine")
    }
}
