import Foundation

extension AuthenticationError: CustomStringConvertible, CustomDebugStringConvertible, LocalizedError {
    /// What happened; never contains a token.
    public var description: String { description(redactedBy: .default) }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Same as ``description``, so `localizedDescription` says it too.
    public var errorDescription: String? { description }

    /// The description, with what `redaction` names hidden in the errors it quotes.
    func description(redactedBy redaction: Redaction) -> String {
        switch self {
        case .missingCredential: "No access token is available; sign in first."
        case .sessionExpired: "The session has expired; the user must sign in again."
        case .refreshFailed(let error):
            ErrorText.sentence(
                "Refreshing the access token failed: "
                    + ErrorText.describe(error, redaction: redaction))
        case .excessiveRefresh:
            "The server kept rejecting access tokens it had just issued: more refreshes after such a rejection than"
                + " the session's refresh limit allows (AuthSession's refreshWindow: parameter, by default"
                + " RefreshWindow(interval: 30, maximumAttempts: 5)); giving up to avoid a refresh loop."
        case .invalidTokenResponse: "The token endpoint's answer is not a valid token response."
        case .cancelled: "Waiting for the access token was cancelled."
        case .storeUnavailable(let error):
            ErrorText.sentence("The stored token cannot be read: " + ErrorText.describe(error, redaction: redaction))
        }
    }
}
