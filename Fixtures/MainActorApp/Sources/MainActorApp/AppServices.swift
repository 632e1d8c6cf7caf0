import Courier
import CourierPlugins
import Foundation

/// The app's networking, set up once.
public final class AppServices {
    public let session: AuthSession
    public let api: RefreshableProvider<API>
    public let auth: Provider<AuthAPI>

    /// - Parameters:
    ///   - tokenFile: where the session keeps its token.
    ///   - apiTransport, authTransport: what sends the requests (the network, or a script in
    ///     tests and previews).
    public init(tokenFile: URL, apiTransport: any HTTPTransport, authTransport: any HTTPTransport) {
        let auth = Provider<AuthAPI>(transport: authTransport)
        self.auth = auth
        session = AuthSession(
            store: FileTokenStore(url: tokenFile),
            refresh: { token in
                guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
                let response = try await auth.request(.refresh(refreshToken: refreshToken))
                return try OAuthToken(response: response)
            })
        api = RefreshableProvider<API>(
            auth: session, transport: apiTransport, plugins: [RequestIDPlugin(), RetryOnceInterceptor(), NetworkLoggerPlugin()])
    }

    /// A provider that answers from each target's sample data, for previews.
    public static func stubbed() -> Provider<API> {
        Provider<API>(stubClosure: Provider.immediatelyStub)
    }
}
