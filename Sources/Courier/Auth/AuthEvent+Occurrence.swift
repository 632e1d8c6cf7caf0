extension AuthEvent {
    /// Which session caused an event: this one, or another that shares its store.
    public enum Source: Sendable, Equatable {
        /// This session: its own refresh, acquire, sign-in or sign-out, or a rejection of the
        /// refresh token it sent.
        case thisSession
        /// Another session sharing the store — in another process (an app extension, a widget,
        /// a command-line tool) or in this one — did it, and this session adopted the result.
        case anotherSession
    }

    /// An event with the session that caused it: what ``AuthSession/eventOccurrences``
    /// delivers.
    ///
    /// ```swift
    /// for await occurrence in session.eventOccurrences
    /// where occurrence.event == .refreshed && occurrence.source == .anotherSession {
    ///     logger.info("the widget refreshed the token")
    /// }
    /// ```
    public struct Occurrence: Sendable, Equatable {
        /// What happened.
        public let event: AuthEvent
        /// Which session caused it.
        public let source: Source

        /// An occurrence of `event`, caused by `source`.
        public init(_ event: AuthEvent, source: Source) {
            self.event = event
            self.source = source
        }
    }
}
