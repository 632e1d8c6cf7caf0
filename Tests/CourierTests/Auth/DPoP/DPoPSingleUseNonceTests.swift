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
@Suite("DPoP retries with single-use nonces under concurrency", .timeLimit(.minutes(5)))
struct DPoPSingleUseNonceTests {
    typealias API = DPoPSessionSigningTests.API

    /// The server: nonces given and not used yet, and what each proof carried.
    final class SingleUseServer: Sendable {
        private struct State {
            var next = 0
            var outstanding: Set<String> = []
        }

        private let state = LockIsolated(State())

        private func issue(_ state: inout State) -> String {
            state.next += 1
            let nonce = "n-\(state.next)"
            state.outstanding.insert(nonce)
            return nonce
        }

        func answer(_ request: URLRequest) -> ScriptedTransport.Reply {
            let nonce = (try? DPoPSessionSigningTests.claims(of: request))?["nonce"] as? String
            return state.withValue { state in
                if let nonce, state.outstanding.remove(nonce) != nil {
                    return .status(200, headers: ["DPoP-Nonce": issue(&state)])
                }
                return .status(
                    401,
                    headers: [
                        "WWW-Authenticate": #"DPoP error="use_dpop_nonce", algs="ES256""#,
                        "DPoP-Nonce": issue(&state),
                    ])
            }
        }
    }

    @Test("16 concurrent requests, 10 rounds: each is sent at most twice and succeeds; no retry reuses a nonce")
    func concurrentRetries() async throws {
        let server = SingleUseServer()
        let transport = ScriptedTransport { server.answer($0) }
        let refreshes = CallCounter()
        let provider = RefreshableProvider<API>(
            auth: try await DPoPSessionSigningTests.session(refreshes: refreshes), transport: transport)
        for round in 0..<10 {
            let sentBefore = transport.requestCount
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 { group.addTask { try await provider.request(API()).statusCode } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 16), "round \(round)")
            #expect(transport.requestCount - sentBefore <= 32, "round \(round): one retry at most per request")
        }
        #expect(refreshes.value == 0, "a nonce challenge is never a refresh")
        // Challenges were met (the first requests had no nonce), and every retry passed.
        #expect(transport.requestCount > 160)
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
