/// Counts what happens to an ``AuthSession`` — renewals, store errors, tokens kept unstored — as
/// OpenTelemetry-named counters (``TelemetryCounter``) of a ``RequestTelemetry``.
///
/// ```swift
/// let telemetry = MyTelemetry()
/// let sessionCounters = AuthSessionTelemetry(session, telemetry: telemetry)
/// let provider = RefreshableProvider<API>(auth: session, plugins: [TelemetryPlugin(telemetry)])
/// ```
///
/// It listens on the session's public streams (``AuthSession/eventOccurrences`` and
/// ``AuthSession/storageEvents``) from the moment it is created until ``cancel()`` or until it
/// is released: keep it as long as the session. The ``TelemetryPlugin`` counts the requests'
/// replays, retries and DPoP nonce retries.
///
/// | Counter | Added to on |
/// | --- | --- |
/// | ``TelemetryCounter/refreshes`` | ``AuthEvent/refreshed`` (`refreshed`), ``AuthEvent/refreshFailed`` (`failed`), ``AuthEvent/sessionExpired`` (`session_expired`) |
/// | ``TelemetryCounter/storeErrors`` | ``TokenStorageEvent/writeFailed(_:)`` |
/// | ``TelemetryCounter/unstoredTokens`` | ``TokenStorageEvent/writeFailed(_:)`` |
public final class AuthSessionTelemetry: Sendable {
    private let listeners: Locked<[Task<Void, Never>]>

    /// Starts counting `session`'s events into `telemetry`.
    ///
    /// - Parameters:
    ///   - session: the session to listen to; events from now on are counted.
    ///   - telemetry: receives each counter's additions.
    ///   - attributes: added to every addition, to tell sessions apart (an account, a key of a
    ///     fleet's store); keep them low-cardinality.
    public init(
        _ session: AuthSession, telemetry: any RequestTelemetry, attributes: [String: TelemetryValue] = [:]
    ) {
        // Subscribed here, before the tasks start, so nothing after `init` is missed.
        let occurrences = session.eventOccurrences
        let storage = session.storageEvents
        let events = Task {
            for await occurrence in occurrences {
                guard let outcome = Self.outcome(of: occurrence.event) else { continue }
                var counted = attributes
                counted[TelemetryKey.authOutcome] = .string(outcome)
                counted[TelemetryKey.authSource] = .string(
                    occurrence.source == .thisSession ? "this_session" : "another_session")
                telemetry.addToCounter(TelemetryCounter.refreshes, 1, attributes: counted)
            }
        }
        let stores = Task {
            for await event in storage {
                guard case .writeFailed = event else { continue }
                var counted = attributes
                counted[TelemetryKey.storeOperation] = .string("write")
                telemetry.addToCounter(TelemetryCounter.storeErrors, 1, attributes: counted)
                telemetry.addToCounter(TelemetryCounter.unstoredTokens, 1, attributes: attributes)
            }
        }
        listeners = Locked([events, stores])
    }

    deinit {
        cancel()
    }

    /// Stops counting.
    public func cancel() {
        let running = listeners.withValue { listeners in
            defer { listeners = [] }
            return listeners
        }
        for listener in running { listener.cancel() }
    }

    /// The `courier.auth.outcome` of an event counted as a renewal; `nil` for the others.
    private static func outcome(of event: AuthEvent) -> String? {
        switch event {
        case .refreshed: "refreshed"
        case .refreshFailed: "failed"
        case .sessionExpired: "session_expired"
        case .signedIn, .acquired, .signedOut: nil
        }
    }
}
