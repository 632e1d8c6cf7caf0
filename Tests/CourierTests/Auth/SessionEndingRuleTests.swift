import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One rule decides when a failed refresh ends a session (TokenRefresh.md, "When a failed
/// refresh ends the session"), and a backend with its own error envelope can replace it.
@Suite("SessionEndingRule", .timeLimit(.minutes(20)))
struct SessionEndingRuleTests {
    static let tokenURL = URL(string: "https://auth.example.com/oauth/token")!

    static func response(
        _ status: Int, _ body: String, answeredBy url: URL = tokenURL, contentType: String = "application/json"
    ) -> Response {
        var request = URLRequest(url: tokenURL)
        request.httpMethod = "POST"
        let http = HTTPURLResponse(
            url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": contentType])
        return Response(statusCode: status, data: Data(body.utf8), request: request, response: http)
    }

    /// A session whose stored token has expired and whose refresh closure throws `error`.
    static func session(throwing error: any Error, rule: SessionEndingRule) -> (AuthSession, InMemoryTokenStore) {
        let store = InMemoryTokenStore(
            OAuthToken(
                accessToken: "at-old", refreshToken: "rt-KEEP", expiresAt: Date().addingTimeInterval(-1),
                issuedAt: Date().addingTimeInterval(-3600)))
        let session = AuthSession(
            store: store, refresh: { _ in throw error }, refreshTimeout: testRefreshTimeout, sessionEndingRule: rule)
        return (session, store)
    }

    @Test(
        "OAuth's rule: 401, and 400 with invalid_grant, invalid_client, unauthorized_client or no OAuth error, end the session",
        arguments: [
            (401, #"{"error":"invalid_client"}"#, true),
            (401, "", true),
            (400, #"{"error":"invalid_grant"}"#, true),
            (400, #"{"error":"unauthorized_client"}"#, true),
            (400, "", true),
            (400, #"{"errorCode":"EXPIRED"}"#, true),
            (400, "Bad Request", true),
            (400, #"{"error":"invalid_request"}"#, false),
            (400, #"{"error":"invalid_scope"}"#, false),
            (403, #"{"error":"invalid_grant"}"#, false),
            (429, "", false),
            (500, #"{"error":"invalid_grant"}"#, false),
        ])
    func oauthRule(status: Int, body: String, ends: Bool) async {
        #expect(await SessionEndingRule.oauth.endsSession(after: Self.response(status, body)) == ends)
    }

    @Test("an HTML page never ends a session, a 401 included (it did before); nor an answer from another origin")
    func neverALogout() async {
        let page = Self.response(401, "<html><body>Unauthorized</body></html>", contentType: "text/html")
        let sniffed = Self.response(400, "  <!DOCTYPE html><html></html>", contentType: "application/octet-stream")
        let elsewhere = Self.response(
            401, #"{"error":"invalid_client"}"#, answeredBy: URL(string: "https://sso.example.net/login")!)
        let always = SessionEndingRule.custom { _ in true }
        for rule in [SessionEndingRule.oauth, always] {
            #expect(await !rule.endsSession(after: page))
            #expect(await !rule.endsSession(after: sniffed))
            #expect(await !rule.endsSession(after: elsewhere))
        }
        #expect(await always.endsSession(after: Self.response(503, "")))
    }

    @Test("a custom rule ends the session on its backend's own envelope, with sessionExpiry naming the answer")
    func customRuleEnds() async throws {
        let rule = SessionEndingRule.custom { response in
            let object = try? JSONSerialization.jsonObject(with: response.data) as? [String: Any]
            return object?["errorCode"] as? String == "REFRESH_TOKEN_EXPIRED"
        }
        let dead = CourierError.statusCode(Self.response(422, #"{"errorCode":"REFRESH_TOKEN_EXPIRED"}"#))
        let (session, store) = Self.session(throwing: dead, rule: rule)
        var events = session.events.makeAsyncIterator()

        await #expect(throws: AuthenticationError.sessionExpired) { try await session.validToken() }

        #expect(await events.next() == .sessionExpired)
        #expect(await session.isSessionExpired)
        #expect(session.sessionExpiry?.cause == .rejectedByTokenEndpoint)
        #expect(session.sessionExpiry?.statusCode == 422)
        #expect(store.load() == nil)
    }

    @Test("a custom rule keeps the session on an answer OAuth's rule ends it on, and the waiters get the error thrown")
    func customRuleKeeps() async throws {
        let rule = SessionEndingRule.custom { response in response.statusCode == 422 }
        let bare400 = CourierError.statusCode(Self.response(400, ""))
        let (session, store) = Self.session(throwing: bare400, rule: rule)

        let error = await #expect(throws: AuthenticationError.self) { try await session.validToken() }

        guard case .refreshFailed(let underlying as CourierError) = error else {
            Issue.record("expected refreshFailed carrying the CourierError, got \(String(describing: error))")
            return
        }
        #expect(underlying.response?.statusCode == 400)
        #expect(await !session.isSessionExpired)
        #expect(store.load()?.refreshToken == "rt-KEEP")
    }

    @Test("with a custom rule, a thrown sessionExpired still ends the session and a network error never does")
    func customRuleKeepsTheFixedCases() async throws {
        let never = SessionEndingRule.custom { _ in false }
        let (ended, _) = Self.session(throwing: AuthenticationError.sessionExpired, rule: never)
        await #expect(throws: AuthenticationError.sessionExpired) { try await ended.validToken() }
        #expect(ended.sessionExpiry?.cause == .refreshClosure)

        let always = SessionEndingRule.custom { _ in true }
        let (kept, store) = Self.session(throwing: URLError(.timedOut), rule: always)
        let error = await #expect(throws: AuthenticationError.self) { try await kept.validToken() }
        guard case .refreshFailed(let underlying as URLError) = error else {
            Issue.record("expected refreshFailed carrying the URLError, got \(String(describing: error))")
            return
        }
        #expect(underlying.code == .timedOut)
        #expect(store.load()?.refreshToken == "rt-KEEP")
    }

    @Test("a custom rule may extend OAuth's")
    func extendingOAuth() async {
        let rule = SessionEndingRule.custom { response in
            await SessionEndingRule.oauth.endsSession(after: response) || response.statusCode == 403
        }
        #expect(await rule.endsSession(after: Self.response(403, "")))
        #expect(await rule.endsSession(after: Self.response(400, #"{"error":"invalid_grant"}"#)))
        #expect(await !rule.endsSession(after: Self.response(400, #"{"error":"invalid_request"}"#)))
    }

    @Test("a custom rule written on the main actor runs there, so it may use the app's main-actor types")
    @MainActor
    func runsWhereWritten() async throws {
        let rule = SessionEndingRule.custom { response in
            MainActor.assertIsolated()
            return MainActorEnvelope.isDead(response)
        }
        let dead = CourierError.statusCode(Self.response(403, #"{"code":"DEAD"}"#))
        let (session, _) = Self.session(throwing: dead, rule: rule)
        await #expect(throws: AuthenticationError.sessionExpired) { try await session.validToken() }
        #expect(session.sessionExpiry?.statusCode == 403)
    }
}

/// An app type isolated to the main actor, as every type is in a new Xcode 26 app target.
@MainActor
enum MainActorEnvelope {
    static func isDead(_ response: Response) -> Bool {
        String(decoding: response.data, as: UTF8.self).contains("DEAD")
    }
}
