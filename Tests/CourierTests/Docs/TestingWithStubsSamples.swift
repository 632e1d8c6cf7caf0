// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples of TestingWithStubs.md, kept in sync by DocSamplesSyncTests. They are tests,
// and they run.

enum TestingWithStubs {  // sample scaffold
    enum GitHub: TargetType {
        case zen
        case user(name: String)
        case search(query: String, page: Int)

        var baseURL: URL { URL(string: "https://api.github.com")! }
        var path: String {
            switch self {
            case .zen: "zen"
            case .user(let name): "users/\(name)"
            case .search: "search/repositories"
            }
        }
        var method: HTTPMethod { .get }
        var task: RequestTask {
            switch self {
            case .search(let query, let page):
                .requestParameters(parameters: ["q": query, "page": page], encoding: URLEncoding.queryString)
            default: .requestPlain
            }
        }
        var headers: [String: String]? { nil }
        var sampleData: Data { self == .zen ? Data("Half measures are as bad as nothing at all.".utf8) : Data() }
    }

    typealias Account = TokenRefresh.Account

    static func stubbedZen() async throws -> String {
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub)
        return try await provider.request(.zen).mapString()
    }

    static func scriptEveryReply(_ transport: ScriptedTransport) throws {
        transport.enqueue(.status(204), for: .delete("/user/keys/1"))  // a status, empty body
        transport.enqueue(.status(304, headers: ["ETag": "\"v2\""]), for: .get("/zen"))  // a status with headers
        transport.enqueue(.json(#"{"login":"ada"}"#), for: .get("/user"))  // JSON text, Content-Type set
        transport.enqueue(.json(#"{"message":"Bad"}"#, statusCode: 422), for: .post("/user/repos"))  // JSON, any status
        transport.enqueue(try .json(encoding: ["login": "ada"]), for: .get("/user"))  // an Encodable value as JSON
        transport.enqueue(.text("Keep it logically awesome."), for: .get("/zen"))  // plain text
        transport.enqueue(.data(Data([0x89, 0x50]), headers: ["Content-Type": "image/png"]), for: .get("/avatar"))  // raw bytes
        transport.enqueue(.response(statusCode: 201, data: Data(), headers: ["Location": "/repos/1"]), for: .post("/repos"))  // the full form
        transport.enqueue(.failure(URLError(.notConnectedToInternet)), for: .get("/user"))  // a network error
        transport.enqueue(.delayed(seconds: 0.5, .status(200)), for: .get("/slow"))  // any reply, later
    }

    static func scriptEveryRoute(_ transport: ScriptedTransport) {
        transport.enqueue(.status(200), for: .get("/user"))  // GET whose path ends in /user
        transport.enqueue(.status(201), for: .post("/user/repos"))  // POST
        transport.enqueue(.status(200), for: .put("/user/starred/apple/swift"))  // PUT
        transport.enqueue(.status(200), for: .patch("/user"))  // PATCH
        transport.enqueue(.status(204), for: .delete("/user/keys/1"))  // DELETE
        transport.enqueue(.status(200), for: ScriptedTransport.Route(path: "/zen"))  // any method
        transport.enqueue(.status(200), for: ScriptedTransport.Route(method: .head, path: "/zen"))  // a method with no shorthand
        transport.enqueue(.status(503), for: .matching("the CDN") { $0.url?.host == "cdn.example.com" })  // your own test
        transport.enqueue(.status(500), for: .any)  // every request
        transport.enqueue(contentsOf: [.status(503), .status(200)], for: .get("/zen"))  // an array of replies
        transport.always(.status(304), for: .get("/zen"))  // every match, once the queue is used up
        transport.respond { request in request.url?.path == "/zen" ? .text("Hi") : nil }  // a closure, last
    }

    static func isDecodingFailure(_ error: any Error) -> Bool {
        if case CourierError.objectMapping = error { return true }
        return false
    }

    static func needsSignIn(_ error: any Error) -> Bool {
        CourierError(error).isSessionExpired
    }

    // CourierTesting.docc's landing page.
    static func landingPageScript() -> Provider<GitHub> {  // sample scaffold
        let transport = ScriptedTransport()
        transport.enqueue(.status(401), .json(#"{"login":"ada"}"#), for: .get("/user"))
        let provider = Provider<GitHub>.scripted(transport)
        return provider  // sample scaffold
    }  // sample scaffold
}  // sample scaffold

extension TestingWithStubs.GitHub: Equatable {}

extension TestingWithStubs {
    /// Any method to any path (or any URL), for exercising routes.
    struct Path: TargetType {
        let method: HTTPMethod
        let url: URL
        init(_ method: HTTPMethod, _ path: String) {
            self.method = method
            self.url = path.hasPrefix("http") ? URL(string: path)! : URL(string: "https://api.example.com" + path)!
        }
        var baseURL: URL { url }
        var path: String { "" }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }
}

extension TestingWithStubs {
    @Suite("Testing with stubs samples")
    struct Samples {
        @Test("every reply constructor answers as the docs say")
        func everyReply() async throws {
            let transport = ScriptedTransport()
            try scriptEveryReply(transport)
            let provider = Provider<Path>(transport: transport)
            #expect(try await provider.request(Path(.delete, "/user/keys/1")).statusCode == 204)
            let notModified = try await provider.request(Path(.get, "/zen"))
            #expect(notModified.statusCode == 304 && notModified.response?.value(forHTTPHeaderField: "ETag") == "\"v2\"")
            let user = try await provider.request(Path(.get, "/user"))
            #expect(user.response?.value(forHTTPHeaderField: "Content-Type") == "application/json")
            #expect(try user.mapString(atKeyPath: "login") == "ada")
            #expect(try await provider.request(Path(.post, "/user/repos")).statusCode == 422)
            #expect(try await provider.request(Path(.get, "/user")).mapString(atKeyPath: "login") == "ada")
            #expect(try await provider.request(Path(.get, "/zen")).mapString() == "Keep it logically awesome.")
            #expect(try await provider.request(Path(.get, "/avatar")).data == Data([0x89, 0x50]))
            let created = try await provider.request(Path(.post, "/repos"))
            #expect(created.statusCode == 201 && created.response?.value(forHTTPHeaderField: "Location") == "/repos/1")
            await #expect(throws: CourierError.self) { try await provider.request(Path(.get, "/user")) }
            #expect(try await provider.request(Path(.get, "/slow")).statusCode == 200)
            #expect(transport.pendingReplyCount == 0)
        }

        @Test("every route matches what the docs say, in the order of the script")
        func everyRoute() async throws {
            let transport = ScriptedTransport()
            scriptEveryRoute(transport)
            let provider = Provider<Path>(transport: transport)
            #expect(try await provider.request(Path(.get, "/v1/user")).statusCode == 200)
            #expect(try await provider.request(Path(.post, "/user/repos")).statusCode == 201)
            #expect(try await provider.request(Path(.delete, "/user/keys/1")).statusCode == 204)
            #expect(try await provider.request(Path(.get, "https://cdn.example.com/x")).statusCode == 503)
            let anyRequest = try await provider.request(Path(.options, "/elsewhere"))
            #expect(anyRequest.statusCode == 500, "the .any route takes the first unmatched request")
            transport.reset()
            scriptEveryRoute(transport)
            _ = try await provider.request(Path(.put, "/user/starred/apple/swift"))
            _ = try await provider.request(Path(.patch, "/user"))
            _ = try await provider.request(Path(.get, "/user"))
            #expect(try await provider.request(Path(.post, "/zen")).statusCode == 200, "Route(path:) takes any method")
            #expect(try await provider.request(Path(.head, "/zen")).statusCode == 200)
            _ = try await provider.request(Path(.get, "/cdn-elsewhere"))  // .any
            #expect(try await provider.request(Path(.get, "/zen")).statusCode == 503)
            #expect(try await provider.request(Path(.get, "/zen")).statusCode == 200)
            #expect(try await provider.request(Path(.get, "/zen")).statusCode == 304, "always, once the queue is used")
            transport.reset()
            scriptEveryRoute(transport)
            #expect(try await provider.request(Path(.options, "/elsewhere")).statusCode == 500)
            #expect(try await provider.request(Path(.trace, "/zen")).statusCode == 200)
            #expect(try await provider.request(Path(.trace, "/zen")).mapString() == "Hi", "the closure comes last")
            await #expect(throws: CourierError.self, "nothing answers") {
                try await provider.request(Path(.trace, "/nothing"))
            }
        }

        @Test func stubbed() async throws {
            #expect(try await stubbedZen() == "Half measures are as bad as nothing at all.")
        }

        @Test func userNotFound() async throws {
            let provider = Provider<GitHub>.stubbed { target in
                switch target {
                case .user: .networkResponse(404, Data(#"{"message":"Not Found"}"#.utf8))
                default: .networkResponse(200, target.sampleData)
                }
            }
            let response = try await provider.request(.user(name: "nobody"))
            #expect(response.statusCode == 404)
        }

        @Test func recoversAfterAnOutage() async throws {
            let provider = Provider<GitHub>.stubbed(sequence: [
                .networkResponse(503, Data()),
                .networkResponse(200, Data("Keep it logically awesome.".utf8)),
            ])
            #expect(try await provider.request(.zen).statusCode == 503)
            #expect(try await provider.request(.zen).mapString() == "Keep it logically awesome.")
        }

        @Test func searchSendsTheQuery() async throws {
            let transport = ScriptedTransport()
            transport.enqueue(.json(#"{"total_count":0,"items":[]}"#), for: .get("/search/repositories"))
            let provider = Provider<GitHub>.scripted(transport)

            _ = try await provider.request(.search(query: "swift", page: 2))

            #expect(transport.requestCount == 1)
            let url = try #require(transport.lastRequest?.url)
            #expect(url.query?.contains("q=swift") == true)
            #expect(transport.pendingReplyCount == 0)
        }

        @Test func completionHandlerSeesTheStub() async {
            let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub)
            let text = await withCheckedContinuation { continuation in
                provider.request(.zen, callbackQueue: .global()) { result in
                    continuation.resume(returning: try? result.get().mapString())
                }
            }
            #expect(text == "Half measures are as bad as nothing at all.")
        }

        @Test func rejectedRefreshTokenEndsTheSession() async throws {
            let session = AuthSession(refresh: { _ in throw AuthenticationError.sessionExpired })
            try await session.signIn(OAuthToken(accessToken: "old", refreshToken: "revoked"))
            let provider = RefreshableProvider<Account>(
                auth: session,
                endpointClosure: Provider.endpointClosure(sampleResponse: { _ in .networkResponse(401, Data()) }),
                stubClosure: Provider.immediatelyStub)

            await #expect(throws: CourierError.authentication(.sessionExpired)) {
                try await provider.request(.profile)
            }
            #expect(await session.needsSignIn)
        }

        struct User: Decodable {
            let login: String
        }

        @Test func unknownUserIsA404() async throws {
            let provider = Provider<GitHub>.stubbed { _ in .networkResponse(404, Data()) }
            let error = await #expect(throws: CourierError.self) {
                try await provider.request(.user(name: "nobody"), as: User.self)
            }
            #expect(error?.statusCode == 404)
        }

        @Test("errors erased to any Error: a case named with its type, and CourierError(_:)")
        func erasedErrors() throws {
            let undecodable = Response(statusCode: 200, data: Data("[]".utf8))
            let decoding = #expect(throws: CourierError.self) { try undecodable.map(User.self) }
            let erased: any Error = try #require(decoding)
            #expect(isDecodingFailure(erased))
            #expect(!isDecodingFailure(CourierError.cancelled))
            #expect(needsSignIn(AuthenticationError.sessionExpired))
            #expect(needsSignIn(CourierError.authentication(.sessionExpired)))
            #expect(!needsSignIn(erased))
        }

        @Test func refreshesAnExpiredToken() async throws {
            let clock = TestClock()
            let session = AuthSession(
                refresh: { _ in OAuthToken(accessToken: "new", expiresAt: clock.date + 3600) },
                now: clock.now)
            try await session.signIn(
                OAuthToken(accessToken: "old", refreshToken: "r", expiresAt: clock.date + 3600))
            let transport = ScriptedTransport()
            transport.always(.status(200), for: .any)
            let provider = RefreshableProvider<Account>(auth: session, transport: transport)

            clock.advance(by: 3600)
            _ = try await provider.request(.profile)

            #expect(transport.lastRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer new")
        }
    }
}
