import Courier
import CourierTesting
import Foundation

/// A token endpoint in memory that rotates refresh tokens and, as real ones with reuse
/// detection do, revokes the whole family when a retired refresh token comes back.
final class RotatingTokenServer: Sendable {
    private struct State {
        var current = "R0"
        var issued = 0
        var presentedRetired: [String] = []
        var revoked = false
    }

    private let state = LockIsolated(State())

    /// Refresh tokens presented after they were retired (each one would revoke the family).
    var retiredPresentations: [String] { state.withValue { $0.presentedRetired } }
    /// How many tokens were issued.
    var issued: Int { state.withValue { $0.issued } }

    /// The first token of the family.
    static func initialToken(expired: Bool = true) -> OAuthToken {
        OAuthToken(
            accessToken: "A0", refreshToken: "R0", expiresAt: Date().addingTimeInterval(expired ? -60 : 3600),
            issuedAt: Date().addingTimeInterval(-3600))
    }

    /// The refresh grant: a new token whose refresh token replaces (retires) the one presented.
    func refresh(_ token: OAuthToken) throws -> OAuthToken {
        try state.withValue { state in
            guard token.refreshToken == state.current, !state.revoked else {
                state.presentedRetired.append(token.refreshToken ?? "none")
                state.revoked = true
                throw Rejected()
            }
            state.issued += 1
            state.current = "R\(state.issued)"
            return OAuthToken(
                accessToken: "A\(state.issued)", refreshToken: state.current,
                expiresAt: Date().addingTimeInterval(3600),
                issuedAt: Date())
        }
    }

    struct Rejected: Error {}
}

/// A store that refuses writes while it is full, with the system's reason for a full disk.
final class FullableTokenStore: TokenStore {
    private let box = LockIsolated<(token: OAuthToken?, full: Bool, refusedWrites: Int)>((nil, false, 0))

    init(_ token: OAuthToken?) {
        box.withValue { $0.token = token }
    }

    var isFull: Bool {
        get { box.withValue { $0.full } }
        set { box.withValue { $0.full = newValue } }
    }

    var refusedWrites: Int { box.withValue { $0.refusedWrites } }
    var stored: OAuthToken? { box.withValue { $0.token } }

    func load() throws -> OAuthToken? { box.withValue { $0.token } }

    func save(_ token: OAuthToken?) throws {
        try box.withValue { box in
            // Deleting needs no space, as on a real file system.
            if box.full, token != nil {
                box.refusedWrites += 1
                throw TokenStoreError.writeFailed("cannot write /tmp/x/.token.json.1.tmp: No space left on device")
            }
            box.token = token
        }
    }
}
