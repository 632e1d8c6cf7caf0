import Foundation

extension AuthPlugin {
    /// A renewal of `session`'s token that failed while a ``RefreshableProvider`` request
    /// waited for it before it was built.
    struct FailedRenewal: Sendable {
        let session: AuthSession
        let error: AuthenticationError
    }

    /// Set by ``RefreshableProvider`` around the first attempt of a request whose renewal
    /// failed while it waited: signing it fails with that error, exactly as when the request
    /// waited inside ``prepare(_:target:)``, instead of starting another renewal. A request
    /// the plugin does not sign is not affected.
    @TaskLocal static var failedRenewal: FailedRenewal?
}
