import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The migration guide's Courier code, as a Swift 5 mode app writes it (`TargetType` without
// `any`, `[String: Any]` where Moya had it; a custom encoding takes `[String: any Sendable]?`).

struct Logger: PluginType {
    func willSend(_ request: URLRequest, target: TargetType) {
        print(request.url?.absoluteString ?? "")
    }
}

struct PlainText: ParameterEncoding {
    func encode(_ request: URLRequest, with parameters: [String: any Sendable]?) throws -> URLRequest {
        var request = request
        let lines = (parameters ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        request.httpBody = Data(lines.joined(separator: "\n").utf8)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        return request
    }
}

enum Account: TargetType, AccessTokenAuthorizable {
    case login, profile
    var baseURL: URL { URL(string: "https://api.example.com")! }
    var path: String { self == .login ? "login" : "me" }
    var method: HTTPMethod { self == .login ? .post : .get }
    var task: RequestTask {
        let parameters: [String: Any] = ["client": "swift5app", "remember": true]
        return .requestParameters(parameters: parameters, encoding: PlainText())
    }
    var headers: [String: String]? { nil }
    var authorizationType: AuthorizationType? { self == .login ? nil : .bearer }
}

final class AccountProvider: Provider<Account>, @unchecked Sendable {
    let region: String
    init(region: String, plugins: [PluginType] = []) {
        self.region = region
        super.init(plugins: plugins + [Logger()])
    }
}

func message(for error: CourierError) -> String? {
    switch error {
    case .cancelled: return nil
    case .statusCode(let response): return "HTTP \(response.statusCode)"
    case .authentication(.sessionExpired): return "Please sign in again."
    default: return error.localizedDescription
    }
}

func send(_ provider: Provider<Account>, progress: @escaping ProgressBlock, completion: @escaping Completion)
    -> Cancellable
{
    provider.request(.profile, callbackQueue: .main, progress: progress, completion: completion)
}

func fetchProfile(_ provider: AccountProvider) async -> String? {
    do {
        return try await provider.request(.profile).mapString()
    } catch {
        return message(for: error)
    }
}

// The guide's typed-throws catch, and Moya's `Response.description`.
func profileStatus(_ provider: Provider<Account>) async -> String {
    do {
        let response = try await provider.request(.profile)
        return response.description  // "Status Code: 200, Data Length: 42"
    } catch .statusCode(let response) {
        return "rejected with \(response.statusCode)"
    } catch {
        return error.description  // error is a CourierError
    }
}

// The guide's endpoint closure with an absolute URL, the provider spelled out, and an
// override of request(_:).

let stubEndpoints: Provider<Account>.EndpointClosure = { target in
    let sampleData = target.sampleData
    return Endpoint(
        url: URL(target: target).absoluteString,
        sampleResponseClosure: { .networkResponse(200, sampleData) },
        method: target.method, task: target.task, httpHeaderFields: target.headers)
}

// The same lines for a MultiTarget: capturing `target` in the sample closure warned here.
let multiTargetStubEndpoints: Provider<MultiTarget>.EndpointClosure = { target in
    let sampleData = target.sampleData
    return Endpoint(
        url: URL(target: target).absoluteString,
        sampleResponseClosure: { .networkResponse(200, sampleData) },
        method: target.method, task: target.task, httpHeaderFields: target.headers)
}

func makeAccountProvider() -> Provider<Account> {
    Provider<Account>(
        endpointClosure: Provider<Account>.defaultEndpointMapping,
        requestClosure: Provider<Account>.defaultRequestMapping,
        stubClosure: Provider<Account>.neverStub,
        callbackQueue: nil,
        transport: URLSessionTransport(),
        retryPolicy: nil,
        plugins: [],
        trackInflights: false,
        maxRequestsPerHost: nil)
}

final class LoggingAccountProvider: Provider<Account>, @unchecked Sendable {
    override func request(_ target: Account) async throws(CourierError) -> Response {
        print("sending", target.path)
        let response = try await super.request(target)
        print("got", response.statusCode)
        return response
    }
}

// The guide's replacement for a token interceptor: a UserDefaults store moved to a safer
// one, a session whose refresh closure calls the token endpoint, the refreshable provider
// spelled out.

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

func makeTokenStore(tokenFile: URL) -> TokenStore {
    #if canImport(Security)
        let store: TokenStore = KeychainTokenStore(service: "com.example.shows")
    #else
        let store: TokenStore = FileTokenStore(url: tokenFile)
    #endif
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
        var parameters: [String: Any] = [
            "client_id": "my-client-id", "client_secret": "my-client-secret", "redirect_uri": "shows://oauth",
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

func makeShowsSession(store: TokenStore) -> AuthSession {
    let authProvider = Provider<ShowsAuth>()
    return AuthSession(
        store: store,
        refresh: { token in
            guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
            return try OAuthToken(response: await authProvider.request(.refresh(token: refreshToken)))
        })
}

func finishSignIn(code: String, session: AuthSession) async throws {
    let authProvider = Provider<ShowsAuth>()
    let response = try await authProvider.request(.exchange(code: code))
    try await session.signIn(try OAuthToken(response: response))
}

func makeAccountProvider(session: AuthSession, transport: URLSessionTransport) -> RefreshableProvider<Account> {
    RefreshableProvider<Account>(
        auth: session,
        refreshPolicy: .default,
        authPlugin: AuthPlugin(auth: session, refreshLeeway: 60, allowedHosts: ["api.example.com"]),
        endpointClosure: Provider<Account>.defaultEndpointMapping,
        requestClosure: Provider<Account>.defaultRequestMapping,
        stubClosure: Provider<Account>.neverStub,
        callbackQueue: nil,
        transport: transport,
        retryPolicy: nil,
        plugins: [Logger()],
        trackInflights: false,
        maxRequestsPerHost: nil)
}

// The guide's Rx translations.

struct Profile: Decodable {
    let name: String
}

@MainActor
final class ProfileViewModel {
    let provider: Provider<Account>
    var name = ""
    private var loading: Task<Void, Never>?

    init(provider: Provider<Account>) {
        self.provider = provider
    }

    func load() async throws {
        let profile = try await provider.request(.profile, as: Profile.self)
        print("loaded", profile.name)
        name = profile.name
    }

    func start() {
        loading = Task { try? await load() }
    }

    func stop() {
        loading?.cancel()
    }
}

func loadProfiles(_ provider: Provider<Account>) async -> [Profile] {
    (try? await provider.request(.profile, as: [Profile].self)) ?? []
}

func profileAndLogin(_ provider: Provider<Account>) async throws -> (Profile, Response) {
    async let profile = provider.request(.profile, as: Profile.self)
    async let login = provider.request(.login)
    return try await (profile, login)
}

func keepAlive(_ provider: Provider<Account>, every interval: Duration) -> Task<Void, Never> {
    Task {
        while !Task.isCancelled {
            _ = try? await provider.request(.profile)
            try? await Task.sleep(for: interval)
        }
    }
}
