import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `dump`, `debugPrint` and debuggers read a value's mirror, not its `description`: every
/// type that holds a secret hides it there too.
@Suite("Secrets hidden from reflection")
struct ReflectionTests {
    static let secrets = ["at-SECRET", "rt-SECRET", "ck-SECRET", "sc-SECRET", "key-SECRET", "pw-SECRET", "q-SECRET"]

    private func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    private func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in Self.secrets {
            #expect(!text.contains(secret), "\(secret) in:\n\(text)", sourceLocation: sourceLocation)
        }
    }

    private var signedRequest: URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com/v1/me?access_token=q-SECRET&page=1")!)
        request.httpMethod = "POST"
        request.setValue("Bearer at-SECRET", forHTTPHeaderField: "Authorization")
        request.setValue("session=ck-SECRET", forHTTPHeaderField: "Cookie")
        request.setValue("key-SECRET", forHTTPHeaderField: "X-Api-Key")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(#"{"password":"pw-SECRET"}"#.utf8)
        return request
    }

    private var signedResponse: Response {
        Response(
            statusCode: 401, data: Data(#"{"access_token":"at-SECRET"}"#.utf8), request: signedRequest,
            response: HTTPURLResponse(
                url: URL(string: "https://api.example.com/v1/me")!, statusCode: 401, httpVersion: "HTTP/1.1",
                headerFields: ["Set-Cookie": "sid=sc-SECRET", "WWW-Authenticate": #"Bearer error="invalid_token""#]))
    }

    @Test("dump(token) shows the type and dates, never the tokens")
    func token() {
        let token = OAuthToken(
            accessToken: "at-SECRET", refreshToken: "rt-SECRET", expiresAt: Date(timeIntervalSince1970: 2_000_000_000))
        let text = dumped(token)
        expectNoSecret(text)
        expectNoSecret(String(reflecting: token))
        expectNoSecret(dumped([token]))
        #expect(text.contains("tokenType: \"Bearer\""))
        #expect(text.contains("accessToken: \"<redacted>\""))
        #expect(text.contains("refreshToken: \"<redacted>\""))
        #expect(dumped(OAuthToken(accessToken: "at-SECRET")).contains("refreshToken: \"absent\""))
    }

    @Test("dump(token) of a token with a NaN or infinite date does not trap")
    func tokenWithUnrepresentableDates() {
        for seconds in [Double.nan, .infinity, -.infinity, 1e300] {
            let token = OAuthToken(
                accessToken: "at-SECRET", expiresAt: Date(timeIntervalSince1970: seconds),
                issuedAt: Date(timeIntervalSince1970: seconds))
            let text = dumped(token)
            expectNoSecret(text)
            #expect(text.contains("expiresAt: \""))
        }
    }

    @Test("dump(session) and dump(store) show no token")
    func session() async throws {
        let store = InMemoryTokenStore(OAuthToken(accessToken: "at-SECRET", refreshToken: "rt-SECRET"))
        let session = AuthSession(
            store: store, refresh: { _ in OAuthToken(accessToken: "at-SECRET") }, refreshTimeout: testRefreshTimeout)
        _ = try await session.validToken()
        let text = dumped(session)
        expectNoSecret(text)
        expectNoSecret(String(reflecting: session))
        #expect(text.contains("refreshTimeout"))
        expectNoSecret(dumped(store))
        #expect(dumped(store).contains("accessToken: \"<redacted>\""))
    }

    @Test("dump(CourierError.statusCode(response)) shows no Authorization, Cookie or token")
    func statusError() {
        let errors: [CourierError] = [
            .statusCode(signedResponse),
            .underlying(URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: signedRequest.url!]), nil),
            .authentication(.refreshFailed(CourierError.statusCode(signedResponse))),
            .objectMapping(URLError(.badServerResponse), signedResponse),
        ]
        for error in errors {
            let text = dumped(error)
            expectNoSecret(text)
            expectNoSecret(String(reflecting: error))
            expectNoSecret(dumped(Result<Response, CourierError>.failure(error)))
        }
        let text = dumped(CourierError.statusCode(signedResponse))
        // `dump` escapes the quotes of the one-line summaries once more.
        #expect(text.contains(#"\"Authorization\": \"<redacted>\""#))
        #expect(text.contains(#"\"WWW-Authenticate\": \"Bearer error=\\\"invalid_token\\\"\""#))
        #expect(text.contains("statusCode: 401"))
    }

    @Test("dump(ScriptedTransport) lists the requests it received, redacted")
    func scriptedTransport() async throws {
        let transport = ScriptedTransport()
        transport.always(.status(200), for: .any)
        _ = try await transport.send(TransportRequest(urlRequest: signedRequest))
        let text = dumped(transport)
        expectNoSecret(text)
        #expect(text.contains("POST https://api.example.com/v1/me?access_token=<redacted>&page=1"))
    }

    @Test("dump of a Response, an Endpoint, a RequestTask and a TransportRequest shows no secret")
    func carriers() {
        expectNoSecret(dumped(signedResponse))
        expectNoSecret(
            dumped(ProgressResponse(progress: 1, completedBytes: 1, totalBytes: 1, response: signedResponse)))
        let endpoint = Endpoint(
            url: "https://api.example.com/login?token=q-SECRET",
            sampleResponseClosure: { .networkResponse(200, Data()) },
            method: .post,
            task: .requestParameters(
                parameters: ["username": "ada", "password": "pw-SECRET", "user": ["password": "pw-SECRET"]],
                encoding: URLEncoding.httpBody),
            httpHeaderFields: ["X-Api-Key": "key-SECRET", "Accept": "application/json"])
        let text = dumped(endpoint)
        expectNoSecret(text)
        #expect(text.contains("username: ada"))
        expectNoSecret(dumped(TransportRequest(urlRequest: signedRequest)))
        expectNoSecret(
            dumped(
                RequestTask.requestCompositeParameters(
                    bodyParameters: ["client_secret": "pw-SECRET"], bodyEncoding: JSONEncoding.default,
                    urlParameters: ["access_token": "q-SECRET"])))
    }
}
