import Foundation

extension AuthSession {
    /// What an app shows at start-up: its home screen, its login screen, or — when the store
    /// could not be read — neither yet (``AuthSession/signInState``).
    public enum SignInState: Sendable, Equatable, CustomStringConvertible {
        /// The session has a token (maybe expired but refreshable: the first request renews
        /// it), or an `acquire` closure that gets one with no user action.
        case signedIn
        /// The user must sign in: nothing is stored (a first launch, a sign-out here or in a
        /// process sharing the store), what is stored is no token (a corrupt token file,
        /// ``TokenStoreError/corrupt(_:)``) or one that cannot be sent (a field longer than
        /// ``OAuthToken/maximumTokenLength``, say), or the session expired.
        case needsSignIn
        /// The store could not be read (a database that is down, a Keychain or a protected
        /// file not readable yet, a file system that fails) and the session has no token in
        /// memory: whether the user is signed in is not known yet. The session reads the store
        /// again before the next request once it answers (and when this is asked again);
        /// requests meanwhile fail with ``AuthenticationError/storeUnavailable(_:)`` carrying
        /// the same error. A store that stays unreadable is replaced by the next
        /// ``AuthSession/signIn(_:)``.
        case unknown(any Error)

        /// `signedIn`, `needsSignIn`, or `unknown: <the store's error>` (redacted; never a token).
        public var description: String {
            switch self {
            case .signedIn: "signedIn"
            case .needsSignIn: "needsSignIn"
            case .unknown(let error):
                "unknown: the token store could not be read: "
                    + Redaction.default.redact(text: String(describing: error))
            }
        }

        /// Whether `error`, from a read of the store, says that the store was read and holds
        /// nothing usable — a corrupt token file, a token that cannot be sent — rather than
        /// that it could not be read (then nothing is known about the user yet).
        static func isUnusableToken(_ error: any Error) -> Bool {
            if error is TokenValidationError || error is DecodingError { return true }
            if case .corrupt = error as? TokenStoreError { return true }
            return false
        }

        /// Whether two states are the same case (the errors of two `unknown`s are not compared).
        public static func == (left: SignInState, right: SignInState) -> Bool {
            switch (left, right) {
            case (.signedIn, .signedIn), (.needsSignIn, .needsSignIn), (.unknown, .unknown): true
            default: false
            }
        }
    }
}
