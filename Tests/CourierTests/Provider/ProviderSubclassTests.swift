import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Moya-style subclass: an `override init` with the full parameter list, and an init of
/// its own, as the Provider documentation shows.
final class AppProvider: Provider<TestAPI>, @unchecked Sendable {  // only `let`s
    let region: String

    init(region: String, transport: any HTTPTransport) {
        self.region = region
        super.init(transport: transport, plugins: [RegionPlugin(region: region)])
    }

    override init(
        endpointClosure: @escaping EndpointClosure = Provider<TestAPI>.defaultEndpointMapping,
        requestClosure: @escaping RequestClosure = Provider<TestAPI>.defaultRequestMapping,
        stubClosure: @escaping StubClosure = Provider<TestAPI>.neverStub,
        callbackQueue: DispatchQueue? = nil,
        transport: any HTTPTransport = URLSessionTransport(),
        retryPolicy: RetryPolicy? = nil,
        plugins: [any PluginType] = [],
        trackInflights: Bool = false,
        maxRequestsPerHost: Int? = nil
    ) {
        self.region = "eu"
        super.init(
            endpointClosure: endpointClosure, requestClosure: requestClosure, stubClosure: stubClosure,
            callbackQueue: callbackQueue, transport: transport, retryPolicy: retryPolicy,
            plugins: plugins + [RegionPlugin(region: "eu")], trackInflights: trackInflights,
            maxRequestsPerHost: maxRequestsPerHost)
    }
}

struct RegionPlugin: PluginType {
    let region: String
    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        var request = request
        request.setValue(region, forHTTPHeaderField: "X-Region")
        return request
    }
}

@Suite("Subclassing Provider with override init, as Moya apps do")
struct ProviderSubclassTests {
    @Test("the override init and an init of its own both configure the subclass")
    func inits() async throws {
        let transport = ScriptedTransport()
        transport.always(.status(200), for: .any)

        let overriding = AppProvider(transport: transport, trackInflights: true)
        let own = AppProvider(region: "us", transport: transport)
        _ = try await overriding.request(.plain)
        _ = try await own.request(.plain)

        #expect(overriding.trackInflights)
        #expect(transport.requests.map { $0.value(forHTTPHeaderField: "X-Region") } == ["eu", "us"])
    }

    @Test("the override init's defaults stub as Moya's do")
    func stubbed() async throws {
        let provider = AppProvider(stubClosure: AppProvider.immediatelyStub)
        #expect(try await provider.request(.user(id: 3), as: User.self) == User(id: 3, name: "Ada"))
    }

    @Test("a subclass is Sendable and can be shared between tasks")
    func sendable() async throws {
        let provider: any Sendable = AppProvider(stubClosure: AppProvider.immediatelyStub)
        let shared = try #require(provider as? AppProvider)
        let ids = try await withThrowingTaskGroup(of: Int.self) { group in
            for id in 0..<20 { group.addTask { try await shared.request(.user(id: id), as: User.self).id } }
            var ids: [Int] = []
            for try await id in group { ids.append(id) }
            return ids
        }
        #expect(ids.sorted() == Array(0..<20))
    }
}
