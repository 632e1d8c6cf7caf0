import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The caller's `Cookie` header stays with its origin: kept on every redirect that stays on the
/// same origin, whatever the status, whether the `Location` is relative or absolute, and
/// dropped on one that leaves it.
@Suite("The caller's Cookie across redirects", .timeLimit(.minutes(20)))
struct SameOriginCookieTests {
    let server: TestServer

    init() async throws {
        server = try await SharedServer.get()
    }

    /// The redirects a request can meet, by status and method (a 303, or a 301 or 302 of a
    /// POST, becomes a GET).
    static let redirects: [(status: Int, method: HTTPMethod)] = [
        (301, .get), (302, .get), (303, .get), (307, .get), (308, .get), (301, .post), (302, .post), (303, .post),
        (307, .post), (308, .post),
    ]

    @Test(
        "a same-origin redirect (301, 302, 303, 307, 308) keeps the caller's Cookie header, relative or absolute Location",
        arguments: TransportUnderTest.allCases, 0..<redirects.count)
    func sameOriginKeepsCookie(_ kind: TransportUnderTest, index: Int) async throws {
        let (status, method) = Self.redirects[index]
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let absolute = server.url("/echo").absoluteString
        for location in ["/echo", absolute] {
            let echo = try await provider.request(redirect(status, to: location, method: method)).echo()
            #expect(echo.path == "/echo", "\(status) \(method.rawValue) to \(location)")
            #expect(
                echo.header("Cookie") == "session=caller-cookie; theme=dark",
                "\(status) \(method.rawValue) to \(location) lost the caller's Cookie")
        }
    }

    @Test(
        "a same-origin redirect that sets a cookie of its own keeps the caller's Cookie header all the same",
        arguments: TransportUnderTest.allCases, [301, 302, 303, 307, 308])
    func sameOriginWithSetCookieKeepsCookie(_ kind: TransportUnderTest, status: Int) async throws {
        // A cookie storage of this test's own: corelibs' storage matches cookies by host alone,
        // so the cookie the redirect sets would reach every other test's requests to 127.0.0.1.
        // (One identifier for every run: corelibs keeps an empty file per identifier.)
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "courier-cookie-test")
        defer { storage.removeCookies(since: .distantPast) }
        let transport: any HTTPTransport
        if kind == .urlSession {
            let configuration = URLSessionTransport.defaultConfiguration()
            configuration.timeoutIntervalForRequest = 30
            configuration.httpCookieStorage = storage
            transport = URLSessionTransport(configuration: configuration)
        } else {
            transport = kind.make(timeout: 30)
        }
        let provider = Provider<ServerAPI>(transport: transport)
        // The cookie's path is this test's own, so no other test's request carries it.
        let path = "/echo/set-cookie-\(UUID().uuidString)"
        let echo = try await provider.request(
            redirect(status, to: path, method: .get, setCookie: "stored=set-by-redirect; Path=\(path)")
        ).echo()
        let cookie = echo.header("Cookie") ?? ""
        #expect(echo.path == path)
        #expect(cookie.contains("session=caller-cookie"), "\(status): the caller's Cookie was dropped: \(cookie)")
        #expect(cookie.contains("theme=dark"), "\(status): \(cookie)")
    }

    @Test(
        "a redirect to another origin (another host name for the same server) drops the caller's Cookie header",
        arguments: TransportUnderTest.allCases, [301, 302, 303, 307, 308])
    func crossOriginDropsCookie(_ kind: TransportUnderTest, status: Int) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        var other = URLComponents(url: server.url("/echo"), resolvingAgainstBaseURL: false)!
        other.host = "localhost"
        let echo = try await provider.request(redirect(status, to: other.url!.absoluteString, method: .get)).echo()
        #expect(echo.header("Host")?.hasPrefix("localhost") == true)
        #expect(echo.header("Cookie") == nil)
    }

    /// `/redirect` to `location` with `status` (answering with `Set-Cookie: setCookie` when
    /// given), carrying the caller's cookies (and a body for a POST).
    private func redirect(_ status: Int, to location: String, method: HTTPMethod, setCookie: String? = nil)
        -> ServerAPI
    {
        var parameters: [String: any Sendable] = ["to": location, "status": status]
        if let setCookie { parameters["set_cookie"] = setCookie }
        var headers = ["Cookie": "session=caller-cookie; theme=dark"]
        let task: RequestTask
        if method == .post {
            headers["Content-Type"] = "application/json"
            task = .requestCompositeData(bodyData: Data(#"{"amount":1}"#.utf8), urlParameters: parameters)
        } else {
            task = .requestParameters(parameters: parameters, encoding: URLEncoding.queryString)
        }
        return ServerAPI(server, "redirect", method: method, task: task, headers: headers)
    }
}
