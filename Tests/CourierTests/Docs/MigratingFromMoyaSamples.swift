// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The Courier side of MigratingFromMoya.md, kept in sync by DocSamplesSyncTests.

enum MigratingFromMoya {  // sample scaffold
    enum Zen: TargetType {
        case zen
        var baseURL: URL { URL(string: "https://api.github.com")! }
        var path: String { "zen" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    static func printZen(_ provider: Provider<Zen>) async {
        do {
            print(try await provider.request(.zen).mapString())
        } catch {
            print(error.description)
        }
    }

    static func zenStatus(_ provider: Provider<Zen>) async -> String {
        do {
            let response = try await provider.request(.zen)
            return response.description  // "Status Code: 200, Data Length: 42"
        } catch .statusCode(let response) {
            return "rejected with \(response.statusCode)"
        } catch {
            return error.description  // error is a CourierError
        }
    }

    static func send(_ provider: Provider<Zen>, progress: @escaping ProgressBlock, completion: @escaping Completion)
        -> any Cancellable
    {
        provider.request(.zen, callbackQueue: .main, progress: progress, completion: completion)
    }

    enum Search: TargetType {
        case repositories(query: String, page: Int)
        var baseURL: URL { URL(string: "https://api.github.com")! }
        var path: String { "search/repositories" }
        var method: HTTPMethod { .get }
        var task: RequestTask {
            switch self {
            case .repositories(let query, let page):
                var parameters: [String: any Sendable] = ["q": query]
                if page > 1 { parameters["page"] = page }
                return .requestParameters(parameters: parameters, encoding: URLEncoding.queryString)
            }
        }
        var headers: [String: String]? { nil }
    }

    static func parameters(fromJSON data: Data) throws -> [String: any Sendable] {
        let object = try JSONSerialization.jsonObject(with: data)
        return object as? [String: any Sendable] ?? [:]
    }

    static let tags = URLEncoding(destination: .queryString, arrayEncoding: .noBrackets, boolEncoding: .literal)

    struct PlainText: ParameterEncoding {
        func encode(_ request: URLRequest, with parameters: [String: any Sendable]?) throws -> URLRequest {
            var request = request
            let lines = (parameters ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            request.httpBody = Data(lines.joined(separator: "\n").utf8)
            request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
            return request
        }
    }

    static func avatarTask(_ jpeg: Data) -> RequestTask {
        let avatar = MultipartFormData(
            provider: .data(jpeg), name: "avatar", fileName: "a.jpg", mimeType: "image/jpeg")
        return .uploadMultipart([avatar])
    }

    struct Timing: PluginType {
        func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
            request
        }
        func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {}
    }

    struct Logger: PluginType {
        func willSend(_ request: URLRequest, target: any TargetType) {
            print(request.url?.absoluteString ?? "")
        }
    }

    static func message(for error: CourierError) -> String? {
        switch error {
        case .cancelled: return nil
        case .statusCode(let response): return "HTTP \(response.statusCode)"
        case .authentication(.sessionExpired): return "Please sign in again."
        default: return error.localizedDescription
        }
    }

    static func makeProvider() -> Provider<Zen> {
        let configuration = URLSessionTransport.defaultConfiguration()
        configuration.timeoutIntervalForRequest = 20
        configuration.httpAdditionalHeaders = ["User-Agent": "MyApp/2.1"]
        return Provider<Zen>(transport: URLSessionTransport(configuration: configuration))
    }

    static let shared = Provider<Zen>(trackInflights: true)

    final class ZenProvider: Provider<Zen>, @unchecked Sendable {  // only `let`s
        let region: String
        init(region: String, plugins: [any PluginType] = []) {
            self.region = region
            super.init(plugins: plugins)
        }
    }

    enum Account: TargetType, AccessTokenAuthorizable {
        case login, profile
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { self == .login ? "login" : "me" }
        var method: HTTPMethod { self == .login ? .post : .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
        var authorizationType: AuthorizationType? { self == .login ? nil : .bearer }
    }

    static let endpointClosure: Provider<Zen>.EndpointClosure = { target in
        Provider.defaultEndpointMapping(for: target).adding(newHTTPHeaderFields: ["X-App": "1"])
    }

    // MARK: Endpoint closures

    static let stubEndpoints: Provider<Zen>.EndpointClosure = { target in
        let sampleData = target.sampleData
        return Endpoint(
            url: URL(target: target).absoluteString,
            sampleResponseClosure: { .networkResponse(200, sampleData) },
            method: target.method, task: target.task, httpHeaderFields: target.headers)
    }

    /// The same lines for a `MultiTarget`, whose wrapped target is not `Sendable` (capturing
    /// `target` in the sample closure failed to compile in Swift 6).
    static let multiTargetStubEndpoints: Provider<MultiTarget>.EndpointClosure = { target in
        let sampleData = target.sampleData
        return Endpoint(
            url: URL(target: target).absoluteString,
            sampleResponseClosure: { .networkResponse(200, sampleData) },
            method: target.method, task: target.task, httpHeaderFields: target.headers)
    }

    // MARK: The provider

    static func makeZenProvider() -> Provider<Zen> {
        Provider<Zen>(
            endpointClosure: Provider<Zen>.defaultEndpointMapping,  // target → Endpoint
            requestClosure: Provider<Zen>.defaultRequestMapping,  // Endpoint → URLRequest
            stubClosure: Provider<Zen>.neverStub,  // always the network
            callbackQueue: nil,  // completion handlers run on the main queue
            transport: URLSessionTransport(),  // a URLSession of its own
            retryPolicy: nil,  // never retries
            plugins: [],
            trackInflights: false,
            maxRequestsPerHost: nil)  // no limit
    }

    final class LoggingZenProvider: Provider<Zen>, @unchecked Sendable {  // only `let`s
        override func request(_ target: Zen) async throws(CourierError) -> Response {
            print("sending", target.path)
            let response = try await super.request(target)
            print("got", response.statusCode)
            return response
        }
    }

    // MARK: Replacing a token interceptor

    struct UserDefaultsTokenStore: TokenStore {
        let key: String

        func load() throws -> OAuthToken? {
            guard let data = UserDefaults.standard.data(forKey: key) else { return nil }
            return try JSONDecoder().decode(OAuthToken.self, from: data)
        }

        func save(_ token: OAuthToken?) throws {
            guard let token else {
                UserDefaults.standard.removeObject(forKey: key)
                return
            }
            UserDefaults.standard.set(try JSONEncoder().encode(token), forKey: key)
        }
    }

    static func makeTokenStore(tokenFile: URL) -> any TokenStore {
        #if canImport(Security)
            let store: any TokenStore = KeychainTokenStore(service: "com.example.shows")
        #else
            let store: any TokenStore = FileTokenStore(url: tokenFile)
        #endif
        // Move the token the old version kept in UserDefaults, once.
        let legacy = UserDefaultsTokenStore(key: "oauth-token")
        if (try? store.load()) == nil, let token = try? legacy.load() {
            try? store.save(token)
            try? legacy.save(nil)
        }
        return store
    }

    enum ShowsAuth: TargetType, AccessTokenAuthorizable {
        case exchange(code: String)
        case refresh(token: String)

        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "oauth/token" }
        var method: HTTPMethod { .post }
        var task: RequestTask {
            var parameters: [String: any Sendable] = [
                "client_id": "my-client-id", "client_secret": "my-client-secret",
                "redirect_uri": "shows://oauth",
            ]
            switch self {
            case .exchange(let code):
                parameters["grant_type"] = "authorization_code"
                parameters["code"] = code
            case .refresh(let token):
                parameters["grant_type"] = "refresh_token"
                parameters["refresh_token"] = token
            }
            return .requestParameters(parameters: parameters, encoding: JSONEncoding.default)
        }
        var headers: [String: String]? { nil }
        var authorizationType: AuthorizationType? { nil }
    }

    static func makeShowsSession(store: any TokenStore) -> AuthSession {
        let authProvider = Provider<ShowsAuth>()
        return AuthSession(
            store: store,
            refresh: { token in
                // The session refreshes only a token that has a refresh token.
                guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
                return try OAuthToken(response: await authProvider.request(.refresh(token: refreshToken)))
            })
    }

    static func finishSignIn(code: String, session: AuthSession) async throws {
        let authProvider = Provider<ShowsAuth>()
        let response = try await authProvider.request(.exchange(code: code))
        try await session.signIn(try OAuthToken(response: response))
    }

    enum Shows: TargetType {
        case watchlist
        case history

        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { self == .watchlist ? "sync/watchlist" : "sync/history" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { ["trakt-api-version": "2"] }
        var validationType: ValidationType { .successCodes }
    }

    static func makeShowsProvider(session: AuthSession, transport: URLSessionTransport) -> RefreshableProvider<Shows> {
        RefreshableProvider<Shows>(
            auth: session,  // whose token signs the requests
            refreshPolicy: .default,  // a 401 means: refresh once, then replay
            authPlugin: AuthPlugin(auth: session, refreshLeeway: 60, allowedHosts: ["api.example.com"]),
            endpointClosure: Provider<Shows>.defaultEndpointMapping,
            requestClosure: Provider<Shows>.defaultRequestMapping,
            stubClosure: Provider<Shows>.neverStub,
            callbackQueue: nil,
            transport: transport,  // one URLSession for all the app's providers
            retryPolicy: nil,
            plugins: [Logger()],  // after the signing plugin
            trackInflights: false,
            maxRequestsPerHost: nil)
    }

    static func makeStubbedShowsProvider() -> RefreshableProvider<Shows> {
        let session = AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: "test-token", refreshToken: "test-refresh")),
            refresh: { token in OAuthToken(accessToken: "refreshed", refreshToken: token.refreshToken) })
        return RefreshableProvider<Shows>(auth: session, stubClosure: Provider.immediatelyStub)
    }

    // MARK: Rx chains

    enum Gallery: TargetType {
        case artwork(id: String)
        case artist(id: String)
        case auctions
        case ping

        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String {
            switch self {
            case .artwork(let id): "artworks/\(id)"
            case .artist(let id): "artists/\(id)"
            case .auctions: "auctions"
            case .ping: "ping"
            }
        }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
        var validationType: ValidationType { .successCodes }
    }

    struct Artwork: Decodable, Sendable {
        let id: String
        let artistID: String
    }

    struct Artist: Decodable, Sendable {
        let name: String
    }

    struct Auction: Decodable, Sendable {
        let name: String
    }

    @MainActor
    final class ArtworkViewModel {
        let provider: Provider<Gallery>
        var artistName = ""
        private var loading: Task<Void, Never>?

        init(provider: Provider<Gallery>) {
            self.provider = provider
        }

        func loadArtist(ofArtwork id: String) async throws {
            let artwork = try await provider.request(.artwork(id: id), as: Artwork.self)
            let artist = try await provider.request(.artist(id: artwork.artistID), as: Artist.self)
            print("loaded", artist.name)
            artistName = artist.name  // on the main actor: no observeOn
        }

        func start(artwork id: String) {
            loading = Task { try? await loadArtist(ofArtwork: id) }
        }

        func stop() {
            loading?.cancel()  // what disposing did
        }
    }

    static func loadAuctions(_ provider: Provider<Gallery>) async -> [Auction] {
        (try? await provider.request(.auctions, as: [Auction].self)) ?? []
    }

    static func artworkAndAuctions(_ provider: Provider<Gallery>, id: String) async throws -> (Artwork, [Auction]) {
        async let artwork = provider.request(.artwork(id: id), as: Artwork.self)
        async let auctions = provider.request(.auctions, as: [Auction].self)
        return try await (artwork, auctions)
    }

    static func keepAlive(_ provider: Provider<Gallery>, every interval: Duration) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                _ = try? await provider.request(.ping)
                try? await Task.sleep(for: interval)
            }
        }
    }

    static let retrying = Provider<Gallery>(retryPolicy: RetryPolicy(maxRetries: 3))
}  // sample scaffold

public struct Movie: Codable {  // an SDK's public model, not Sendable
    public var title: String
    public var ids: [String: Int]
}

public enum Movies: TargetType {
    case rate(Movie, rating: Int)

    public var baseURL: URL { URL(string: "https://api.example.com")! }
    public var path: String { "sync/ratings" }
    public var method: HTTPMethod { .post }
    public var task: RequestTask {
        switch self {
        case .rate(let movie, let rating):
            // Encoded here, so the model need not be Sendable.
            .requestCompositeData(
                bodyData: (try? JSONEncoder().encode(movie)) ?? Data(), urlParameters: ["rating": rating])
        }
    }
    public var headers: [String: String]? { ["Content-Type": "application/json"] }
}

@Suite("Migrating from Moya: an SDK's non-Sendable public models")
struct MigratingSDKModelSamples {
    @Test("a target carrying a non-Sendable public model sends it as JSON")
    func nonSendableModel() async throws {
        let transport = ScriptedTransport()
        transport.always(.status(201), for: .post("/sync/ratings"))
        let provider = Provider<Movies>(transport: transport)
        let movie = Movie(title: "Heat", ids: ["trakt": 1])
        #expect(try await provider.request(.rate(movie, rating: 9)).statusCode == 201)
        let sent = try #require(transport.lastRequest)
        #expect(sent.url?.query == "rating=9")
        #expect(try JSONDecoder().decode(Movie.self, from: sent.httpBody ?? Data()).title == "Heat")
    }
}

extension MigratingFromMoya {
    @Suite("Migrating from Moya samples")
    struct Samples {
        @Test("the migrated target and plugin run through a provider")
        func migrated() async throws {
            let transport = ScriptedTransport()
            transport.enqueue(.text("Approachable is better than simple."), for: .get("/zen"))
            let provider = Provider<Zen>.scripted(transport, plugins: [Timing()])

            await printZen(provider)

            #expect(transport.requests.map { $0.url?.absoluteString } == ["https://api.github.com/zen"])
        }

        @Test("the guide's parameters, encodings, multipart part, errors and subclass behave as it says")
        func guide() throws {
            let search = try Provider.defaultEndpointMapping(for: Search.repositories(query: "swift", page: 2))
                .urlRequest()
            #expect(search.url?.query == "page=2&q=swift")
            #expect(try parameters(fromJSON: Data(#"{"page":2}"#.utf8))["page"] as? Int == 2)
            #expect(tags.query(["t": ["a", "b"], "all": true]) == "all=true&t=a&t=b")
            let plain = try PlainText().encode(
                URLRequest(url: URL(string: "https://x.example")!), with: ["b": 2, "a": 1])
            #expect(plain.httpBody == Data("a=1\nb=2".utf8))
            guard case .uploadMultipart(let parts) = avatarTask(Data([1])) else {
                Issue.record("not a multipart task")
                return
            }
            #expect(parts.first?.fileName == "a.jpg")
            #expect(message(for: .cancelled) == nil)
            #expect(message(for: .statusCode(Response(statusCode: 503, data: Data()))) == "HTTP 503")
            #expect(ZenProvider(region: "eu").region == "eu")
            #expect(shared.trackInflights)
            #expect(Account.login.authorizationType == nil && Account.profile.authorizationType == .bearer)
            #expect(endpointClosure(.zen).httpHeaderFields?["X-App"] == "1")
            #expect(makeProvider().transport is URLSessionTransport)
        }

        @Test func zenAnswers() async {
            let provider = Provider<Zen>(stubClosure: Provider.immediatelyStub)
            let status = await withCheckedContinuation { continuation in
                provider.request(.zen, callbackQueue: .global()) { result in
                    continuation.resume(returning: try? result.get().statusCode)
                }
            }
            #expect(status == 200)
        }

        @Test("the typed-throws catch sees a CourierError; a response describes itself as Moya's does")
        func typedThrowsCatch() async {
            /// Rejects a 500, as a target's validation would.
            struct Rejecting: PluginType {
                func process(_ result: Result<Response, CourierError>, target: any TargetType) -> Result<
                    Response, CourierError
                > {
                    result.flatMap { $0.statusCode == 500 ? .failure(.statusCode($0)) : .success($0) }
                }
            }
            let transport = ScriptedTransport()
            transport.enqueue(.text("Keep it logically awesome."), .status(500), for: .get("/zen"))
            let provider = Provider<Zen>(transport: transport, plugins: [Rejecting()])
            #expect(await zenStatus(provider) == "Status Code: 200, Data Length: 26")
            #expect(await zenStatus(provider) == "rejected with 500")
        }

        @Test("the absolute stub endpoints answer; the provider's defaults are the ones listed")
        func endpointsAndDefaults() async throws {
            let stubbed = Provider<Zen>(endpointClosure: stubEndpoints, stubClosure: Provider.immediatelyStub)
            let response = try await stubbed.request(.zen)
            #expect(response.request?.url?.absoluteString == "https://api.github.com/zen")
            let multi = Provider<MultiTarget>(
                endpointClosure: multiTargetStubEndpoints, stubClosure: Provider.immediatelyStub)
            #expect(try await multi.request(MultiTarget(Zen.zen)).data == Zen.zen.sampleData)

            let provider = makeZenProvider()
            #expect(provider.transport is URLSessionTransport && provider.retryPolicy == nil)
            #expect(provider.plugins.isEmpty && !provider.trackInflights && provider.maxRequestsPerHost == nil)
            #expect(provider.stubClosure(.zen) == .never)
            #expect(retrying.retryPolicy?.maxRetries == 3)
        }

        @Test("an override of request(_:) sees every form of request, the completion form too")
        func overrideSeesEveryForm() async throws {
            let transport = ScriptedTransport()
            transport.always(.text("Design for failure."), for: .get("/zen"))
            let provider = LoggingZenProvider(transport: transport)
            _ = try await provider.request(.zen)
            let text = await withCheckedContinuation { continuation in
                provider.request(.zen, callbackQueue: .global()) { result in
                    continuation.resume(returning: try? result.get().mapString())
                }
            }
            #expect(text == "Design for failure.")
            #expect(transport.requestCount == 2)
        }

        @Test("the UserDefaults store keeps a token as JSON, and makeTokenStore moves it to the file once")
        func userDefaultsStore() throws {
            let legacy = UserDefaultsTokenStore(key: "oauth-token")
            defer { UserDefaults.standard.removeObject(forKey: "oauth-token") }
            let token = OAuthToken(accessToken: "a1", refreshToken: "r1", expiresAt: Date(timeIntervalSince1970: 2e9))
            try legacy.save(token)
            #expect(try legacy.load() == token)

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-guide-\(UUID()).json")
            defer { try? FileManager.default.removeItem(at: file) }
            let store = makeTokenStore(tokenFile: file)
            #expect(try store.load() == token)
            #expect(try legacy.load() == nil)
            try store.save(OAuthToken(accessToken: "a2", refreshToken: "r2"))
            #expect(try makeTokenStore(tokenFile: file).load()?.accessToken == "a2", "moved once, not again")
        }

        @Test("the token endpoint target sends the client's credentials and the grant in a JSON body")
        func showsAuthBody() throws {
            let request = try Provider.defaultEndpointMapping(for: ShowsAuth.exchange(code: "c-1")).urlRequest()
            let body = try JSONSerialization.jsonObject(with: request.httpBody ?? Data()) as? [String: String]
            #expect(body?["grant_type"] == "authorization_code" && body?["code"] == "c-1")
            #expect(body?["client_id"] == "my-client-id" && body?["client_secret"] == "my-client-secret")
            #expect(ShowsAuth.refresh(token: "r").authorizationType == nil)
            _ = makeShowsSession(store: InMemoryTokenStore())
            let provider = makeShowsProvider(
                session: AuthSession(refresh: { $0 }), transport: URLSessionTransport())
            #expect(provider.plugins.first is AuthPlugin && provider.plugins.last is Logger)
        }

        @Test func stubbedShowsAreSigned() async throws {
            let provider = makeStubbedShowsProvider()
            let response = try await provider.request(.watchlist)
            #expect(response.request?.value(forHTTPHeaderField: "Authorization") == "Bearer test-token")
        }

        @Test func replaysAfterA401() async throws {
            let session = AuthSession(
                store: InMemoryTokenStore(OAuthToken(accessToken: "old", refreshToken: "r")),
                refresh: { token in OAuthToken(accessToken: "new", refreshToken: token.refreshToken) })
            let responses = SampleResponseSequence([.networkResponse(401, Data()), .networkResponse(200, Data("[]".utf8))])
            let provider = RefreshableProvider<Shows>(
                auth: session,
                endpointClosure: Provider.endpointClosure(sequence: responses),
                stubClosure: Provider.immediatelyStub)

            let response = try await provider.request(.watchlist)

            #expect(response.request?.value(forHTTPHeaderField: "Authorization") == "Bearer new")
            #expect(responses.servedCount == 2)
        }

        @Test("the Rx translations: chained requests, a fallback, two at once, a retry policy")
        @MainActor
        func rxTranslations() async throws {
            let transport = ScriptedTransport()
            transport.always(.json(#"{"id":"a1","artistID":"p9"}"#), for: .get("/artworks/a1"))
            transport.always(.json(#"{"name":"Hilma af Klint"}"#), for: .get("/artists/p9"))
            transport.enqueue(.status(503), .json(#"[{"name":"Spring sale"}]"#), for: .get("/auctions"))
            let provider = Provider<Gallery>(transport: transport)

            let model = ArtworkViewModel(provider: provider)
            try await model.loadArtist(ofArtwork: "a1")
            #expect(model.artistName == "Hilma af Klint")
            #expect(await loadAuctions(provider).isEmpty, "a 503 becomes the fallback")
            let (artwork, auctions) = try await artworkAndAuctions(provider, id: "a1")
            #expect(artwork.artistID == "p9" && auctions.map(\.name) == ["Spring sale"])
        }

        @Test("keepAlive pings until its task is cancelled", .timeLimit(.minutes(20)))
        func keepAlivePings() async {
            let (pings, ping) = AsyncStream.makeStream(of: Void.self)
            let transport = ScriptedTransport { request in
                ping.yield()
                return .status(204)
            }
            let task = keepAlive(Provider<Gallery>(transport: transport), every: .zero)
            var seen = 0
            for await _ in pings {
                seen += 1
                if seen == 3 { break }
            }
            task.cancel()
            await task.value
            #expect(transport.requestCount >= 3)
        }
    }
}
