import Foundation

/// On iOS, tvOS, watchOS and visionOS: keeps the app (or extension) running while it holds
/// the token lease, and says when the system is about to suspend it anyway, so the lease can
/// be given up first. A process suspended while it holds a file lock in an app group's
/// container is killed by the system (exception code 0xdead10cc).
///
/// Elsewhere processes are not suspended behind their back, and there is nothing to do.
final class BackgroundAssertion: Sendable {
    #if canImport(Darwin) && !os(macOS)
        private let done = DispatchSemaphore(value: 0)

        private init(onExpiry: @escaping @Sendable () -> Void) {
            let done = self.done
            ProcessInfo.processInfo.performExpiringActivity(withReason: "Renewing the access token") { expired in
                if expired {
                    // Called on another thread while the first call still waits below.
                    onExpiry()
                    done.signal()
                } else {
                    // The process is kept running for as long as this call has not returned.
                    done.wait()
                }
            }
        }
    #endif

    /// Starts an assertion; `onExpiry` runs if the system ends it before ``end()``.
    static func begin(onExpiry: @escaping @Sendable () -> Void) -> BackgroundAssertion? {
        #if canImport(Darwin) && !os(macOS)
            BackgroundAssertion(onExpiry: onExpiry)
        #else
            nil
        #endif
    }

    /// Ends the assertion.
    func end() {
        #if canImport(Darwin) && !os(macOS)
            done.signal()
        #endif
    }
}
