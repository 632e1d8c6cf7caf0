// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    import Foundation

    /// Why a call to the database behind a ``PostgresTokenStore`` failed: what was being done,
    /// and the reason libpq or the server gave.
    ///
    /// The description names the server it talked to (the connection string with any password
    /// removed) and never contains a password or a token.
    public struct PostgresStoreError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What failed.
        public enum Kind: String, Sendable, Equatable {
            /// No connection could be made (the server is down or unreachable, the credentials
            /// were refused, TLS failed, or it took longer than the connect time-out).
            case connectionFailed = "could not connect to the database"
            /// The connection broke while a statement was in flight; whether the statement took
            /// effect is unknown (a fenced write can be retried safely: it is refused if it did).
            case connectionLost = "the connection to the database was lost"
            /// The server refused a statement (``PostgresStoreError/sqlState`` says why).
            case statementFailed = "the database refused a statement"
            /// The stored row holds something that is not a token.
            case invalidData = "the database holds something that is not a token"
            /// The table or channel name given is not an SQL identifier, or a key holds NUL
            /// (which PostgreSQL's text cannot hold: it would be cut there, into another key's row).
            case invalidName = "the table or channel name is not an SQL identifier, or the key holds NUL"
            /// The store was shut down.
            case shutDown = "the token store was shut down"
            /// The process could not get what the store needs from the system (a pipe: it is
            /// out of file descriptors).
            case systemResources = "the system refused the token store a resource"
        }

        /// What failed.
        public let kind: Kind
        /// libpq's or the server's reason, with any password removed.
        public let reason: String
        /// The server's SQLSTATE code for a refused statement (such as `42P01`), when it sent one.
        public let sqlState: String?
        /// The connection string, with any password removed.
        public let connection: String

        /// Creates the error; `reason` and `connection` are redacted here: `connection` is shown
        /// as libpq reads it, without its password (or wholly hidden when libpq cannot read it),
        /// and the password is removed from `reason` wherever it appears.
        public init(kind: Kind, reason: String, sqlState: String? = nil, connection: String) {
            self.kind = kind
            self.reason = ConnectionString.redacting(reason, of: connection)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            self.sqlState = sqlState
            self.connection = ConnectionString.describing(connection)
        }

        /// What happened, why, and where.
        public var description: String {
            var text = "\(kind.rawValue) (\(connection)): \(reason)"
            if let sqlState { text += " [SQLSTATE \(sqlState)]" }
            return text
        }
    }

#endif
