import Courier
import Foundation

/// A small signed API for the kit's tests.
enum KitAPI: TargetType, AccessTokenAuthorizable {
    case me
    case repos(page: Int)
    case upload(URL)
    case download(URL)
    case login

    var baseURL: URL { URL(string: "https://api.example.com/v2")! }
    var path: String {
        switch self {
        case .me: "me"
        case .repos: "me/repos"
        case .upload: "files"
        case .download: "files/report"
        case .login: "login"
        }
    }
    var method: HTTPMethod {
        switch self {
        case .upload, .login: .post
        default: .get
        }
    }
    var task: RequestTask {
        switch self {
        case .repos(let page): .requestParameters(parameters: ["page": page], encoding: URLEncoding.queryString)
        case .upload(let file): .uploadFile(file)
        case .download(let destination):
            .downloadDestination { _, _ in (destination, [.createIntermediateDirectories, .removePreviousFile]) }
        default: .requestPlain
        }
    }
    var headers: [String: String]? { ["Accept": "application/json"] }
    var sampleData: Data { Data(#"{"login":"ada"}"#.utf8) }
    var authorizationType: AuthorizationType? { self == .login ? nil : .bearer }

    static func == (lhs: KitAPI, rhs: KitAPI) -> Bool { lhs.path == rhs.path }
}

/// Counts refreshes and hands out numbered tokens.
actor TokenIssuer {
    private(set) var refreshes = 0
    let lifetime: TimeInterval
    let clock: @Sendable () -> Date

    init(lifetime: TimeInterval = 3600, clock: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.clock = clock
    }

    func refresh(_ old: OAuthToken) -> OAuthToken {
        refreshes += 1
        let now = clock()
        return OAuthToken(
            accessToken: "access-\(refreshes + 1)", refreshToken: "refresh-\(refreshes + 1)",
            expiresAt: now.addingTimeInterval(lifetime), issuedAt: now)
    }
}
