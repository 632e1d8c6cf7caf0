import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The token endpoint's answers against the real server: only its own origin can end a
/// session. A token POST redirected to another origin that answers 401, or an HTML error page
/// (an SSO page, a captive portal, a gateway), is a failed refresh, and the refresh token is
/// kept — that origin never saw it.
@Suite("Who may end a session", .timeLimit(.minutes(20)))
struct TokenEndpointOriginTests {
    /// The token request, sent to `path` on `server` (a redirect, or a page).
    struct TokenRequest: TargetType, AccessTokenAuthorizable {
        let base: URL
        let path: String
        let query: [String: String]
        let refreshToken: String
        var baseURL: URL { base }
        var method: HTTPMethod { .post }
        var task: RequestTask {
            .requestCompositeParameters(
                bodyParameters: ["grant_type": "refresh_token", "refresh_token": refreshToken],
                bodyEncoding: URLEncoding.httpBody, urlParameters: query)
        }
        var headers: [String: String]? { nil }
        var authorizationType: AuthorizationType? { nil }
    }

    /// Refreshes an expired token whose token endpoint answers through `path` and `query`.
    func refresh(on server: TestServer, path: String, query: [String: String] = [:]) async throws -> (
        AuthSession, InMemoryTokenStore, Result<OAuthToken, AuthenticationError>
    ) {
        let store = InMemoryTokenStore(
            OAuthToken(accessToken: "at-old", refreshToken: "rt-KEEP", expiresAt: Date() - 10, issuedAt: Date() - 3610))
        let tokens = Provider<TokenRequest>()
        let base = server.baseURL
        let session = AuthSession(
            store: store,
            refresh: { token in
                try OAuthToken(
                    response: await tokens.request(
                        TokenRequest(base: base, path: path, query: query, refreshToken: token.refreshToken ?? "")))
            }, refreshTimeout: testRefreshTimeout)
        do {
            return (session, store, .success(try await session.validToken()))
        } catch {
            return (session, store, .failure(error))
        }
    }

    @Test(
        "a token POST redirected to another origin that answers 401 or an HTML 400 keeps the session and its refresh token"
    )
    func otherOrigin() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let other = try await TestServer.start()
        defer { other.stop() }
        for page in ["/status/401", "/html-status/400", "/html-status/401"] {
            let (session, store, result) = try await refresh(
                on: server, path: "redirect", query: ["to": other.url(page).absoluteString, "status": "302"])
            guard case .failure(.refreshFailed(let underlying)) = result,
                case .statusCode(let response) = underlying as? CourierError
            else {
                Issue.record("\(page): expected refreshFailed with the other origin's answer, got \(result)")
                continue
            }
            // The redirect was followed: the rejection is the other origin's own.
            #expect(response.response?.url?.port == other.url("/").port, "\(page)")
            #expect([400, 401].contains(response.statusCode), "\(page)")
            #expect(await !session.isSessionExpired, "\(page)")
            #expect(store.load()?.refreshToken == "rt-KEEP", "\(page)")
        }
    }

    @Test("the token endpoint's own HTML error page is not a logout either; its own 401 is, and says why")
    func ownOrigin() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (page, pageStore, pageResult) = try await refresh(on: server, path: "html-status/400")
        guard case .failure(.refreshFailed) = pageResult else {
            Issue.record("expected refreshFailed, got \(pageResult)")
            return
        }
        #expect(await !page.isSessionExpired)
        #expect(pageStore.load()?.refreshToken == "rt-KEEP")

        let (rejected, rejectedStore, result) = try await refresh(on: server, path: "status/401")
        guard case .failure(.sessionExpired) = result else {
            Issue.record("expected sessionExpired, got \(result)")
            return
        }
        #expect(rejectedStore.load() == nil)
        let expiry = try #require(rejected.sessionExpiry)
        #expect(expiry.statusCode == 401)
        #expect(expiry.request == "POST \(server.url("/status/401").absoluteString)")
        #expect(!expiry.description.contains("rt-KEEP"))
    }
}
