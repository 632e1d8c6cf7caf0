// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples of TokenRefresh.md, kept in sync by DocSamplesSyncTests. `makeSession` and
// `loadProfile` would reach example.com: they are compiled, and the tests below run the same
// targets and closures against the scripted transport.

enum TokenRefresh {  // sample scaffold
    enum AuthAPI: TargetType, AccessTokenAuthorizable {
        case signIn(username: String, password: String)
        case refresh(token: String)
        case guest

        var baseURL: URL { URL(string: "https://auth.example.com")! }
        var path: String { "oauth/token" }
        var method: HTTPMethod { .post }
        var task: RequestTask {
            let parameters: [String: any Sendable] =
                switch self {
                case .signIn(let username, let password):
                    ["grant_type": "password", "username": username, "password": password]
                case .refresh(let token): ["grant_type": "refresh_token", "refresh_token": token]
                case .guest: ["grant_type": "client_credentials"]
                }
            return .requestParameters(parameters: parameters, encoding: URLEncoding.httpBody)
        }
        var headers: [String: String]? {
            // The app authenticates itself on every call to the token endpoint.
            let credentials = Data("my-app:my-client-secret".utf8).base64EncodedString()
            return ["Authorization": "Basic \(credentials)"]
        }
        var authorizationType: AuthorizationType? { nil }
    }

    static func makeSession(tokenFile: URL) -> AuthSession {
        let authProvider = Provider<AuthAPI>()
        return AuthSession(
            store: FileTokenStore(url: tokenFile),
            refresh: { token in
                // The session refreshes only a token that has a refresh token.
                guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
                let response = try await authProvider.request(.refresh(token: refreshToken))
                return try OAuthToken(response: response)
            })
    }

    enum Account: TargetType, AccessTokenAuthorizable {
        case profile
        case signUp(email: String)

        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String {
            switch self {
            case .profile: "me"
            case .signUp: "accounts"
            }
        }
        var method: HTTPMethod {
            switch self {
            case .profile: .get
            case .signUp: .post
            }
        }
        var task: RequestTask {
            switch self {
            case .profile: .requestPlain
            case .signUp(let email): .requestJSONEncodable(["email": email])
            }
        }
        var headers: [String: String]? { nil }
        var authorizationType: AuthorizationType? {
            switch self {
            case .profile: .bearer
            case .signUp: nil
            }
        }
    }

    static func loadProfile(session: AuthSession) async throws -> Response {
        let provider = RefreshableProvider<Account>(auth: session)
        return try await provider.request(.profile)
    }

    static func watchSession(_ session: AuthSession, showLogin: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        // Subscribed here, before the task first runs: a session that ends at once is not missed.
        let events = session.events
        return Task {
            for await event in events where event == .sessionExpired {
                await showLogin()
            }
        }
    }

    static func businessCodeProvider(session: AuthSession) -> RefreshableProvider<Account> {
        let policy = RefreshPolicy.custom { response in
            let status = try? response.mapString(atKeyPath: "status")
            return response.statusCode == 401 || status == "8"
        }
        return RefreshableProvider<Account>(auth: session, refreshPolicy: policy)
    }

    static func signIn(username: String, password: String, session: AuthSession) async throws {
        let authProvider = Provider<AuthAPI>()
        let response = try await authProvider.request(.signIn(username: username, password: password))
        try await session.signIn(try OAuthToken(response: response))
    }

    static func makeGuestSession() -> AuthSession {
        let authProvider = Provider<AuthAPI>()
        return AuthSession(
            refresh: { token in
                guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
                return try OAuthToken(response: await authProvider.request(.refresh(token: refreshToken)))
            },
            acquire: {
                try OAuthToken(response: await authProvider.request(.guest))
            })
    }

    static func start(session: AuthSession, showLogin: @escaping @Sendable () async -> Void) async -> Task<Void, Never> {
        if let error = await session.tokenLoadError {
            print("The saved sign-in could not be read, please sign in again: \(error)")
        }
        if await session.needsSignIn {
            await showLogin()
        }
        return watchSession(session, showLogin: showLogin)
    }

    struct ErrorEnvelope: Decodable {
        let errorCode: String
    }

    static func makeEnvelopeSession(store: any TokenStore, refresh: @escaping AuthSession.RefreshClosure) -> AuthSession {
        AuthSession(
            store: store,
            refresh: refresh,
            sessionEndingRule: .custom { response in
                // {"errorCode": "REFRESH_TOKEN_EXPIRED"} or {"errorCode": "REFRESH_TOKEN_REVOKED"}
                let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: response.data)
                return envelope?.errorCode.hasPrefix("REFRESH_TOKEN_") ?? false
            })
    }

    enum MobileAuthAPI: TargetType, AccessTokenAuthorizable {
        case refresh(token: String)

        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "app/v1/auth/refresh" }
        var method: HTTPMethod { .post }
        var task: RequestTask {
            switch self {
            case .refresh(let token): .requestJSONEncodable(["refreshToken": token])
            }
        }
        var headers: [String: String]? { nil }
        var authorizationType: AuthorizationType? { nil }
    }

    static let mobileTokenFormat = TokenResponseFormat(
        accessToken: "data.accessToken", refreshToken: "data.refreshToken", tokenType: nil,
        expiry: .date("data.expireTime"))

    static func makeMobileSession(store: any TokenStore) -> AuthSession {
        let authProvider = Provider<MobileAuthAPI>()
        return AuthSession(
            store: store,
            refresh: { token in
                guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
                let response = try await authProvider.request(.refresh(token: refreshToken))
                return try OAuthToken(response: response, format: mobileTokenFormat)
            })
    }
}  // sample scaffold

extension TokenRefresh {
    @Suite("Token refresh samples", .timeLimit(.minutes(20)))
    struct Samples {
        @Test("the refresh closure's shape: a form POST to the token endpoint with the client's Basic credentials, parsed into a token")
        func refreshEndpoint() async throws {
            let transport = ScriptedTransport()
            transport.enqueue(
                .json(#"{"access_token":"new","token_type":"bearer","expires_in":60,"refresh_token":"r2"}"#),
                for: .post("/oauth/token"))
            let authProvider = Provider<AuthAPI>.scripted(transport)

            let response = try await authProvider.request(.refresh(token: "r1"))
            let token = try OAuthToken(response: response)

            #expect(token.accessToken == "new" && token.refreshToken == "r2" && token.tokenType == "Bearer")
            let request = try #require(transport.lastRequest)
            #expect(request.value(forHTTPHeaderField: "Authorization") == "Basic bXktYXBwOm15LWNsaWVudC1zZWNyZXQ=")
            #expect(
                String(decoding: request.httpBody ?? Data(), as: UTF8.self)
                    == "grant_type=refresh_token&refresh_token=r1")
        }

        @Test("signing in: a password grant to the token endpoint, with the client's credentials; a wrong password is a 400 status error")
        func signInGrant() async throws {
            let transport = ScriptedTransport()
            transport.enqueue(
                .json(#"{"access_token":"a1","token_type":"bearer","expires_in":3600,"refresh_token":"r1"}"#),
                .json(#"{"error":"invalid_grant"}"#, statusCode: 400),
                for: .post("/oauth/token"))
            let authProvider = Provider<AuthAPI>.scripted(transport)
            let session = AuthSession(refresh: { $0 })

            let response = try await authProvider.request(.signIn(username: "ada", password: "pw"))
            try await session.signIn(try OAuthToken(response: response))

            #expect(await session.token?.accessToken == "a1")
            #expect(await !session.needsSignIn)
            let sent = try #require(transport.lastRequest)
            #expect(sent.value(forHTTPHeaderField: "Authorization") == "Basic bXktYXBwOm15LWNsaWVudC1zZWNyZXQ=", "the client, not a user token")
            let body = String(decoding: sent.httpBody ?? Data(), as: UTF8.self)
            #expect(Set(body.split(separator: "&")) == ["grant_type=password", "username=ada", "password=pw"])

            let wrong = try await authProvider.request(.signIn(username: "ada", password: "nope"))
            #expect(throws: CourierError.self) { try OAuthToken(response: wrong) }
            #expect(await session.token?.accessToken == "a1", "a failed sign-in leaves the session alone")
        }

        @Test("the acquire closure gets a guest token once, when there is none")
        func guestToken() async throws {
            let transport = ScriptedTransport()
            transport.enqueue(.json(#"{"access_token":"guest","token_type":"bearer","expires_in":3600}"#), for: .post("/oauth/token"))
            let authProvider = Provider<AuthAPI>.scripted(transport)
            let session = AuthSession(
                refresh: { $0 }, acquire: { try OAuthToken(response: await authProvider.request(.guest)) })
            #expect(await !session.needsSignIn)

            async let first = session.validToken()
            async let second = session.validToken()
            #expect(try await [first.accessToken, second.accessToken] == ["guest", "guest"])
            #expect(transport.requestCount == 1)
            #expect(String(decoding: transport.lastRequest?.httpBody ?? Data(), as: UTF8.self) == "grant_type=client_credentials")
            _ = makeGuestSession()
        }

        @Test("start shows the login screen at once over a corrupt token file, and not over a stored token")
        func startUp() async throws {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-docs-\(UUID()).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data("not a token".utf8).write(to: file)
            let shown = HookLog()

            let corrupt = makeSession(tokenFile: file)
            let watcher = await start(session: corrupt) { shown.append("login") }
            watcher.cancel()
            #expect(shown.all == ["login"])
            #expect(await corrupt.tokenLoadError != nil)

            try FileTokenStore(url: file).save(OAuthToken(accessToken: "stored", refreshToken: "r"))
            let stored = makeSession(tokenFile: file)
            let quiet = await start(session: stored) { shown.append("login again") }
            quiet.cancel()
            #expect(shown.all == ["login"])
        }

        @Test("makeSession loads the token stored in its file")
        func session() async throws {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-docs-\(UUID()).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try FileTokenStore(url: file).save(OAuthToken(accessToken: "stored", refreshToken: "r"))

            let session = makeSession(tokenFile: file)

            #expect(await session.token?.accessToken == "stored")
        }

        @Test("a business code counts as a rejected token for the custom policy")
        func businessCode() async throws {
            let provider = businessCodeProvider(session: AuthSession(refresh: { $0 }))
            let expired = Response(statusCode: 200, data: Data(#"{"status":"8"}"#.utf8))
            let fine = Response(statusCode: 200, data: Data(#"{"status":"0"}"#.utf8))

            #expect(provider.refreshPolicy.isAuthenticationFailure(expired))
            #expect(!provider.refreshPolicy.isAuthenticationFailure(fine))
            #expect(provider.refreshPolicy.isAuthenticationFailure(Response(statusCode: 401, data: Data())))
        }

        @Test("the envelope rule ends the session on REFRESH_TOKEN_*, and keeps it on another envelope code")
        func envelopeRule() async throws {
            for (code, ends) in [("REFRESH_TOKEN_REVOKED", true), ("RATE_LIMITED", false)] {
                let body = Data(#"{"errorCode":"\#(code)"}"#.utf8)
                let store = InMemoryTokenStore(OAuthToken(accessToken: "a", refreshToken: "r"))
                let session = makeEnvelopeSession(store: store) { _ in
                    throw CourierError.statusCode(Response(statusCode: 403, data: body))
                }
                await #expect(throws: AuthenticationError.self) {
                    try await session.refresh(rejecting: OAuthToken(accessToken: "a", refreshToken: "r"))
                }
                #expect(await session.isSessionExpired == ends, "\(code)")
            }
        }

        @Test("the mobile backend's answer is read with its format: wrapped camel-case fields and an ISO 8601 expiry")
        func mobileFormat() throws {
            let received = Date(timeIntervalSince1970: 1_700_000_000)
            let body = #"{"code":0,"data":{"accessToken":"at","refreshToken":"rt","expireTime":"2023-11-14T23:13:20Z"}}"#
            let token = try OAuthToken(
                response: Response(statusCode: 200, data: Data(body.utf8)), format: mobileTokenFormat,
                receivedAt: received)
            #expect(token.accessToken == "at" && token.refreshToken == "rt")
            #expect(token.expiresAt == received.addingTimeInterval(3600))
            _ = makeMobileSession(store: InMemoryTokenStore())
        }

        @Test("watchSession shows the login screen when the refresh token is rejected")
        func sessionExpired() async throws {
            let token = OAuthToken(accessToken: "a", refreshToken: "r")
            let session = AuthSession(refresh: { _ in throw AuthenticationError.sessionExpired })
            let shown = HookLog()
            let watcher = watchSession(session) { shown.append("login") }
            defer { watcher.cancel() }

            // The watcher subscribed before it returned, so the end that comes now is seen.
            try await session.signIn(token)
            await #expect(throws: AuthenticationError.self) {
                try await session.refresh(rejecting: token)
            }
            try await shown.wait(forCount: 1)

            #expect(shown.all == ["login"])
            #expect(await session.isSessionExpired)
        }
    }
}
