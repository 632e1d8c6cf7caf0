import Courier
import CourierPlugins
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An app class, not Sendable, as most are.
final class AuthManager {
    static let shared = AuthManager()
    var token = "stored-token"
}

/// A plugin written for Moya 15: synchronous `prepare`, no `async`, no `throws`.
struct UserAgentPlugin: PluginType {
    func prepare(_ request: URLRequest, target: TargetType) -> URLRequest {
        var request = request
        request.setValue("Swift5App/1.0", forHTTPHeaderField: "User-Agent")
        return request
    }

    func didReceive(_ result: Result<Response, CourierError>, target: TargetType) {
        if case .failure(let error) = result { print("request failed:", error) }
    }
}

/// A Moya-style provider subclass.
final class MyServiceProvider: Provider<MyService>, @unchecked Sendable {
    override init(
        endpointClosure: @escaping EndpointClosure = Provider<MyService>.defaultEndpointMapping,
        requestClosure: @escaping RequestClosure = Provider<MyService>.defaultRequestMapping,
        stubClosure: @escaping StubClosure = Provider<MyService>.neverStub,
        callbackQueue: DispatchQueue? = nil,
        transport: HTTPTransport = URLSessionTransport(),
        retryPolicy: RetryPolicy? = nil,
        plugins: [PluginType] = [],
        trackInflights: Bool = false,
        maxRequestsPerHost: Int? = nil
    ) {
        super.init(
            endpointClosure: endpointClosure, requestClosure: requestClosure, stubClosure: stubClosure,
            callbackQueue: callbackQueue, transport: transport, retryPolicy: retryPolicy,
            plugins: plugins + [UserAgentPlugin()], trackInflights: trackInflights,
            maxRequestsPerHost: maxRequestsPerHost)
    }
}

/// Moya's documented endpoint closure, unchanged but for the provider's name.
let endpointClosure = { (target: MyService) -> Endpoint in
    let defaultEndpoint = Provider.defaultEndpointMapping(for: target)
    return defaultEndpoint.adding(newHTTPHeaderFields: ["APP_NAME": "MY_AWESOME_APP"])
}

/// The app's providers, set up the way the README and the migration guide show.
enum Providers {
    /// A closure kept in a `static let` needs its type spelled out (see the migration guide).
    static let versionedEndpoint: Provider<MyService>.EndpointClosure = { target in
        Provider.defaultEndpointMapping(for: target).adding(newHTTPHeaderFields: ["X-Version": "2"])
    }

    static let versioned = Provider<MyService>(endpointClosure: versionedEndpoint)

    static let inline = Provider<MyService>(endpointClosure: { target in
        Provider.defaultEndpointMapping(for: target).adding(newHTTPHeaderFields: ["X-Inline": "1"])
    })

    static let session = AuthSession(refresh: { token in
        var refreshed = token
        refreshed.accessToken = "new"
        return refreshed
    })

    static let refreshable = RefreshableProvider<MyService>(
        auth: session, stubClosure: RefreshableProvider.immediatelyStub, plugins: [UserAgentPlugin()])

    static let live = Provider<MyService>(
        endpointClosure: endpointClosure,
        plugins: [
            AccessTokenPlugin { _ in AuthManager.shared.token },
            UserAgentPlugin(),
            NetworkLoggerPlugin(),
        ],
        trackInflights: true)

    static let stubbed = Provider<MyService>(stubClosure: Provider.immediatelyStub)
    static let slow = Provider<MyService>(stubClosure: Provider.delayedStub(0.2))
    static let subclassed = MyServiceProvider(stubClosure: MyServiceProvider.immediatelyStub)

    static let configured = Provider<MyService>(
        transport: URLSessionTransport(
            configuration: {
                let configuration = URLSessionConfiguration.default
                configuration.timeoutIntervalForRequest = 20
                configuration.httpAdditionalHeaders = ["X-Client": "Swift5App"]
                return configuration
            }()))
}

/// A view model in the Moya style: completion handlers, progress, cancellation.
final class ZenViewModel {
    var zen = ""
    var uploadProgress = 0.0
    private var request: Cancellable?

    func load() {
        request = Providers.stubbed.request(.zen) { result in
            switch result {
            case .success(let response):
                self.zen = (try? response.mapString()) ?? ""
            case .failure(let error):
                print(error.localizedDescription)
            }
        }
    }

    func upload(_ data: Data) {
        let progress: ProgressBlock = { step in self.uploadProgress = step.progress }
        let completion: Completion = { result in print(result) }
        request = Providers.live.request(
            .uploadAvatar(data), callbackQueue: .main, progress: progress, completion: completion)
    }

    func makeProvider() -> Provider<MyService> {
        let endpointClosure = { (target: MyService) -> Endpoint in
            Provider.defaultEndpointMapping(for: target).adding(newHTTPHeaderFields: ["X-Local": "1"])
        }
        return Provider(endpointClosure: endpointClosure, stubClosure: Provider.immediatelyStub)
    }

    func cancel() {
        request?.cancel()
    }

    func loadAsync() async throws -> String {
        try await Providers.stubbed.request(.zen).mapString()
    }

    func json() throws -> Any {
        // Values from JSONSerialization go straight back into parameters in Swift 5 mode.
        let object = try JSONSerialization.jsonObject(with: Data("{\"page\": 2}".utf8))
        guard let parameters = object as? [String: Any] else { return object }
        return RequestTask.requestParameters(parameters: parameters, encoding: URLEncoding.default)
    }

    func report(_ error: CourierError) -> NSError {
        error as NSError
    }
}
