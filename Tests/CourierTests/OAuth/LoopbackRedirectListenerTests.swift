import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The loopback listener (RFC 8252 §7.3): one callback with the right state, at the exact path,
/// on 127.0.0.1, then closed.
@Suite("Loopback redirect listener", .timeLimit(.minutes(20)))
struct LoopbackRedirectListenerTests {
    static let metadata = AuthorizationServerMetadata(
        issuer: URL(string: "https://auth.example.com")!,
        authorizationEndpoint: URL(string: "https://auth.example.com/authorize")!)

    func request(for listener: LoopbackRedirectListener) async throws -> AuthorizationRequest {
        try await OAuthClient(metadata: Self.metadata, clientID: "cli").authorizationRequest(
            redirectURI: listener.redirectURI)
    }

    /// A plain GET, as a browser sends it; the status and the page.
    func get(_ url: URL) async throws -> (Int, String) {
        let (data, response) = try await URLSession.shared.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("its redirect URI is http on 127.0.0.1, an ephemeral port and the exact path")
    func redirectURI() throws {
        let listener = try LoopbackRedirectListener(path: "/oauth/done")
        defer { listener.close() }
        #expect(listener.redirectURI.scheme == "http")
        #expect(listener.redirectURI.host == "127.0.0.1")
        #expect((listener.redirectURI.port ?? 0) > 0)
        #expect(listener.redirectURI.path == "/oauth/done")
    }

    @Test("a wrong path, a wrong state or a POST is refused with a page, and the right callback then completes")
    func refusesThenAccepts() async throws {
        let listener = try LoopbackRedirectListener()
        let request = try await request(for: listener)
        let waiting = Task { try await listener.callback(for: request, timeout: 120) }
        let base = listener.redirectURI.absoluteString
        let port = listener.redirectURI.port ?? 0
        let (wrongPath, _) = try await get(URL(string: "http://127.0.0.1:\(port)/callbackx?state=\(request.state)")!)
        #expect(wrongPath == 404)
        let (wrongState, page) = try await get(URL(string: "\(base)?code=c&state=forged")!)
        #expect(wrongState == 400)
        #expect(page.contains("not the one the application is waiting for"))
        let (right, done) = try await get(URL(string: "\(base)?code=c&state=\(request.state)")!)
        #expect(right == 200)
        #expect(done.contains("You may close this tab"))
        let callback = try await waiting.value
        #expect(
            URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value
                == "c")
        await #expect(throws: (any Error).self) { try await get(URL(string: "\(base)?code=c&state=\(request.state)")!) }
    }

    @Test("the head of a request is classified without a socket: method, exact path, state")
    func classification() throws {
        let listener = try LoopbackRedirectListener()
        defer { listener.close() }
        if case .refused(let status, _) = listener.classify(head: "POST /callback?state=s HTTP/1.1", expectedState: "s")
        {
            #expect(status.hasPrefix("405"))
        } else {
            Issue.record("a POST was taken as the callback")
        }
        if case .refused(let status, _) = listener.classify(head: "GET /callback/?state=s HTTP/1.1", expectedState: "s")
        {
            #expect(status.hasPrefix("404"))
        } else {
            Issue.record("a trailing slash was taken as the exact path")
        }
        if case .refused(let status, _) = listener.classify(head: "GET /callback?state=t HTTP/1.1", expectedState: "s")
        {
            #expect(status.hasPrefix("400"))
        } else {
            Issue.record("a wrong state was taken as the callback")
        }
        guard case .callback = listener.classify(head: "GET /callback?code=c&state=s HTTP/1.1", expectedState: "s")
        else {
            Issue.record("the right callback was refused")
            return
        }
    }

    @Test("cancelling the waiting task ends the wait with .cancelled and closes the listener")
    func cancellation() async throws {
        let listener = try LoopbackRedirectListener()
        let request = try await request(for: listener)
        let waiting = Task { try await listener.callback(for: request, timeout: 600) }
        waiting.cancel()
        let result = await waiting.result
        guard case .failure(let error) = result, case .cancelled? = error as? OAuthError else {
            Issue.record("expected .cancelled, got \(result)")
            return
        }
        await #expect(throws: OAuthError.self) { try await listener.callback(for: request) }
    }

    @Test("with no callback the wait ends with listenerTimedOut, and the port is closed")
    func timesOut() async throws {
        let listener = try LoopbackRedirectListener()
        let request = try await request(for: listener)
        // The shortest time-out the listener takes (1 s): the event waited for is its own.
        let error = await #expect(throws: OAuthError.self) { try await listener.callback(for: request, timeout: 0) }
        guard case .listenerTimedOut(let seconds) = error else {
            Issue.record("expected listenerTimedOut, got \(String(describing: error))")
            return
        }
        #expect(seconds == 1)
        await #expect(throws: (any Error).self) { try await get(listener.redirectURI) }
    }
}
