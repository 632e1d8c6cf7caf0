import Courier
import Foundation

/// A backend whose token endpoint speaks its own JSON and has its own error envelope, written
/// as a main-actor app writes it: the format is a main-actor global, the rule a closure.
let ownTokenFormat = TokenResponseFormat(
    accessToken: "data.accessToken", refreshToken: "data.refreshToken", tokenType: nil,
    expiry: .date("data.expireTime"))

/// The backend's error envelope.
struct ErrorEnvelope: Decodable {
    let errorCode: String
}

/// A session for that backend, and a watcher that tells this app's refreshes from another
/// process's.
public final class OwnTokenEndpointSession {
    /// The session.
    public let session: AuthSession
    /// How many refreshes another session sharing the store made, as this one heard of them.
    public private(set) var refreshesElsewhere = 0
    private var watcher: Task<Void, Never>?

    /// A session on `store` whose token requests go to `transport`.
    public init(store: any TokenStore, transport: any HTTPTransport) {
        let auth = Provider<AuthAPI>(transport: transport)
        session = AuthSession(
            store: store,
            refresh: { token in
                guard let refreshToken = token.refreshToken else { throw AuthenticationError.sessionExpired }
                let response = try await auth.request(.refresh(refreshToken: refreshToken))
                return try OAuthToken(response: response, format: ownTokenFormat)
            },
            sessionEndingRule: .custom { response in
                let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: response.data)
                return envelope?.errorCode.hasPrefix("REFRESH_TOKEN_") ?? false
            })
        let occurrences = session.eventOccurrences
        watcher = Task { [weak self] in
            for await occurrence in occurrences where occurrence.event == .refreshed {
                if occurrence.source == .anotherSession { self?.refreshesElsewhere += 1 }
            }
        }
    }

    /// Stops watching the session's events.
    public func stop() {
        watcher?.cancel()
    }
}
