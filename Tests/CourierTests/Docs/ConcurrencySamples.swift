// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Dispatch
import Foundation
import Observation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The Concurrency article's samples, kept in sync by DocSamplesSyncTests. This file is also
// compiled, and its tests run, by Fixtures/MainActorApp, whose targets are main-actor
// isolated by default: what the article says of such an app is checked there.

enum AppAPI {
    case me
    case feed
    case post(Draft)
}

extension AppAPI: TargetType {
    var baseURL: URL { AppSettings.baseURL }
    var path: String {
        switch self {
        case .me: "me"
        case .feed: "feed"
        case .post: "posts"
        }
    }
    var method: HTTPMethod {
        switch self {
        case .me, .feed: .get
        case .post: .post
        }
    }
    var task: RequestTask {
        switch self {
        case .me, .feed: .requestPlain
        case .post(let draft): .requestJSONEncodable(draft)
        }
    }
    var headers: [String: String]? { nil }
}

enum AppSettings {
    static let baseURL = URL(string: "https://api.example.com")!
}

struct Draft: Encodable { let title: String }
struct Me: Decodable { let name: String }

@MainActor  // sample scaffold
@Observable
final class MeModel {
    var name = ""
    var isLoading = false
    let provider: Provider<AppAPI>

    init(provider: Provider<AppAPI>) {
        self.provider = provider
    }

    func load() async throws {
        name = try await provider.request(.me, as: Me.self).name
    }

    func loadTheMoyaWay() {
        isLoading = true
        provider.request(.me) { result in
            self.isLoading = false  // runs on the main actor, where it was written
            if case .success(let response) = result {
                self.name = (try? response.map(Me.self).name) ?? ""
            }
        }
    }
}

struct FeedItem: Decodable { let title: String }

@MainActor  // sample scaffold
@Observable
final class HomeModel {
    var name = ""
    var items: [FeedItem] = []
    let provider: Provider<AppAPI>

    init(provider: Provider<AppAPI>) {
        self.provider = provider
    }

    func load() async throws {
        async let me = profile()
        async let feed = feedItems()
        let (profile, items) = try await (me, feed)
        name = profile.name
        self.items = items
    }

    func loadInAGroup() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.showProfile() }
            group.addTask { try await self.showFeed() }
            try await group.waitForAll()
        }
    }

    private func showProfile() async throws {
        name = try await profile().name
    }

    private func showFeed() async throws {
        items = try await feedItems()
    }

    private func profile() async throws(CourierError) -> Me {
        try await provider.request(.me, as: Me.self)
    }

    private func feedItems() async throws(CourierError) -> [FeedItem] {
        try await provider.request(.feed, as: [FeedItem].self)
    }
}

@MainActor  // sample scaffold
@Observable
final class SessionModel {
    var showsLogin = false
    @ObservationIgnored private var watcher: Task<Void, Never>?

    init(session: AuthSession) {
        let events = session.events
        watcher = Task { [weak self] in
            for await event in events where event == .sessionExpired {
                self?.showsLogin = true
            }
        }
    }

    isolated deinit {
        watcher?.cancel()
    }
}

nonisolated enum FeedAPI: TargetType {
    case items
    case publicItems
    var baseURL: URL { URL(string: "https://feed.example.com")! }
    var path: String { self == .items ? "items" : "public/items" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

nonisolated extension FeedAPI: AccessTokenAuthorizable {
    var authorizationType: AuthorizationType? { self == .publicItems ? nil : .bearer }
}

enum ConcurrencyDocs {  // sample scaffold
    actor FeedSync {
        let provider: Provider<FeedAPI>

        init(provider: Provider<FeedAPI>) {
            self.provider = provider
        }

        func sync() async throws -> Data {
            try await provider.request(.items).data
        }

        func syncPublic() async throws -> Data { try await provider.request(.publicItems).data }  // sample scaffold
    }

    static let tagged = Provider<FeedAPI>(endpointClosure: { target in
        Provider.defaultEndpointMapping(for: target).adding(newHTTPHeaderFields: ["X-Client": "app"])
    })

    nonisolated final class FeedProvider: Provider<FeedAPI>, @unchecked Sendable {
        nonisolated(nonsending) override func request(_ target: FeedAPI) async throws(CourierError) -> Response {
            try await super.request(target)
        }
    }

    static func sendAll<Target: TargetType & Sendable>(_ targets: [Target], with provider: Provider<Target>) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for target in targets {
                group.addTask { (try? await provider.request(target)) != nil }
            }
            var sent = 0
            for await ok in group where ok {
                sent += 1
            }
            return sent
        }
    }

    @MainActor
    final class RequestLog {
        var lines: [String] = []
    }

    struct TrackerPlugin: PluginType {
        let log: RequestLog

        func willSend(_ request: URLRequest, target: any TargetType) {
            let line = "\(request.httpMethod ?? "GET") \(target.path)"
            Task { @MainActor in log.lines.append(line) }
        }
    }

    nonisolated struct Catalog: Decodable {
        let items: [String]
    }

    static func loadCatalog(with provider: Provider<AppAPI>) async throws -> Catalog {
        let data = try await provider.request(.me).data
        return try await Task.detached { try JSONDecoder().decode(Catalog.self, from: data) }.value
    }

    static func fetchInBackground(with provider: Provider<FeedAPI>, queue: DispatchQueue) {
        let completion: Completion = { result in
            print("fetched on the queue:", (try? result.get().statusCode) ?? 0)
        }
        provider.request(.items, callbackQueue: queue, completion: completion)
    }
}  // sample scaffold

@Suite("Concurrency samples")
struct ConcurrencySamples {
    @Test("the view model loads with async/await and with the completion form, on the main actor")
    @MainActor
    func viewModel() async throws {
        let transport = ScriptedTransport()
        transport.always(.json(#"{"name":"Ada"}"#), for: .get("/me"))
        let model = MeModel(provider: Provider(transport: transport))
        try await model.load()
        #expect(model.name == "Ada")
        model.name = ""
        model.loadTheMoyaWay()
        #expect(model.isLoading)
        // The handler runs on the main actor after the request: wait for the model to change.
        for await _ in Observations({ model.isLoading }) where !model.isLoading { break }
        #expect(model.name == "Ada")
    }

    @Test("a main-actor view model sends two requests at once, with async let and with a task group")
    @MainActor
    func concurrentRequests() async throws {
        let transport = GatedTransport(
            answering: ClosureTransport { request in
                let body = request.urlRequest.url?.path == "/me" ? #"{"name":"Ada"}"# : #"[{"title":"one"}]"#
                return Response(statusCode: 200, data: Data(body.utf8), request: request.urlRequest)
            })
        let model = HomeModel(provider: Provider(transport: transport))
        let loading = Task { try await model.load() }
        // Both requests wait at the gate together: they are in flight at once.
        try await transport.waitForWaitingRequests(2)
        transport.open()
        try await loading.value
        #expect(model.name == "Ada")
        #expect(model.items.map(\.title) == ["one"])

        let grouped = HomeModel(provider: Provider(transport: transport))
        try await grouped.loadInAGroup()
        #expect(grouped.name == "Ada")
        #expect(grouped.items.count == 1)
    }

    @Test("a session watcher shows the login on expiry, and its model's isolated deinit runs")
    @MainActor
    func sessionWatcher() async throws {
        let session = AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: "a", refreshToken: "r")),
            refresh: { _ in throw AuthenticationError.sessionExpired })
        var model: SessionModel? = SessionModel(session: session)
        weak let watched = model
        _ = try? await session.refresh(rejecting: OAuthToken(accessToken: "a", refreshToken: "r"))
        for await _ in Observations({ watched?.showsLogin ?? true }) where watched?.showsLogin ?? true { break }
        #expect(model?.showsLogin == true)
        model = nil
        #expect(watched == nil)
    }

    @Test("an actor sends requests for a nonisolated target; generic code sends many")
    func offTheMainActor() async throws {
        let transport = ScriptedTransport()
        transport.always(.json(#"["a"]"#), for: .get("/items"))
        let provider = Provider<FeedAPI>(transport: transport)
        let data = try await ConcurrencyDocs.FeedSync(provider: provider).sync()
        #expect(String(decoding: data, as: UTF8.self) == #"["a"]"#)
        #expect(await ConcurrencyDocs.sendAll(Array(repeating: .items, count: 20), with: provider) == 20)
        let subclassed = try await ConcurrencyDocs.FeedProvider(transport: transport).request(.items)
        #expect(subclassed.statusCode == 200)
        #expect(ConcurrencyDocs.tagged.endpoint(.items).httpHeaderFields?["X-Client"] == "app")
    }

    @Test("from an actor, a nonisolated target whose authorizationType is nil is never signed")
    func unsignedFromAnActor() async throws {
        let transport = ScriptedTransport()
        transport.always(.json("[]"), for: .any)
        let session = AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: "t", refreshToken: nil, tokenType: "Bearer")),
            refresh: { $0 })
        let provider = RefreshableProvider<FeedAPI>(auth: session, transport: transport)
        let sync = ConcurrencyDocs.FeedSync(provider: provider)
        for _ in 0..<10 {
            _ = try await sync.sync()
            _ = try await sync.syncPublic()
        }
        let signed = transport.requests.map { ($0.url?.path ?? "", $0.value(forHTTPHeaderField: "Authorization")) }
        #expect(signed.filter { $0.0 == "/items" }.allSatisfy { $0.1 == "Bearer t" })
        #expect(signed.filter { $0.0 == "/public/items" }.allSatisfy { $0.1 == nil })
        #expect(signed.count == 20)
    }
}
