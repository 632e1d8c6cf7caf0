// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    import Courier
    import Foundation

    /// The faults of a ``PostgresDatabase``'s table that its sessions work around rather than
    /// fail on, told to whoever listens (see ``PostgresDatabase/faults()``).
    final class PostgresStoreFaults: Sendable {
        private let subscribers = Locked<(next: UInt64, all: [UInt64: AsyncStream<PostgresStoreError>.Continuation])>(
            (0, [:]))

        /// A stream of the faults reported from now on (the newest 100 kept for a slow reader).
        func subscribe() -> AsyncStream<PostgresStoreError> {
            let (stream, continuation) = AsyncStream.makeStream(
                of: PostgresStoreError.self, bufferingPolicy: .bufferingNewest(100))
            let id = subscribers.withValue { subscribers in
                subscribers.next += 1
                subscribers.all[subscribers.next] = continuation
                return subscribers.next
            }
            continuation.onTermination = { [weak self] _ in
                self?.subscribers.withValue { _ = $0.all.removeValue(forKey: id) }
            }
            return stream
        }

        /// Tells every subscriber.
        func report(_ fault: PostgresStoreError) {
            let told = subscribers.withValue { Array($0.all.values) }
            for subscriber in told { subscriber.yield(fault) }
        }

        /// Ends every stream (the database was closed).
        func finish() {
            let told = subscribers.withValue { subscribers in
                defer { subscribers.all.removeAll() }
                return Array(subscribers.all.values)
            }
            for subscriber in told { subscriber.finish() }
        }
    }

#endif
