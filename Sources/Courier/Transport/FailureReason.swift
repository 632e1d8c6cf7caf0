import Foundation

/// Why a transfer failed, in words, where the `URLError` code alone would not say it (a
/// certificate that has expired, a proxy that refused the tunnel, a header larger than the
/// client accepts). A transport puts it in the error's `userInfo` under ``userInfoKey``, and
/// ``CourierError``'s description uses it. It names no credential: the texts are fixed.
package enum FailureReason {
    /// The `URLError.userInfo` key of the reason (a `String`).
    package static let userInfoKey = "CourierFailureReason"
}
