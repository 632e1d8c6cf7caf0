// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    @testable import CourierPostgres
    import Courier
    import Foundation
    import Testing

    /// Issue 32, item 4: nothing of a password in any text, for every form of connection string
    /// libpq accepts (read by libpq itself, so the description is what libpq reads).
    @Suite("Connection strings are shown without their password")
    struct RedactionTests {
        struct Case: Sendable, CustomStringConvertible {
            let connection: String
            /// Every fragment of the password that must not appear.
            let secrets: [String]
            /// What the description must say (the options libpq read, not the password).
            let shows: [String]
            var description: String { connection }
        }

        static let cases: [Case] = [
            Case(
                connection: "host=db password=Wr0ng&Tail user=x", secrets: ["Wr0ng", "Tail"],
                shows: ["host=db", "user=x"]),
            Case(
                connection: #"host=db password=Bs\ Escaped-Tail user=x"#, secrets: ["Bs", "Escaped", "Tail"],
                shows: ["host=db", "user=x"]),
            Case(
                connection: "host=db password='a b c' user=x", secrets: ["a b c"], shows: ["host=db", "user=x"]),
            Case(
                connection: #"host=db password='it\'s \\ sec ret' user=x"#, secrets: ["it", "sec", "ret"],
                shows: ["host=db", "user=x"]),
            Case(connection: "host=db password = s3cret user=x", secrets: ["s3cret"], shows: ["host=db", "user=x"]),
            Case(
                connection: "postgresql://app:s3cr%65t-Pw@db.internal:5432/app?sslmode=require",
                secrets: ["s3cr", "et-Pw", "%65t"], shows: ["host=db.internal", "port=5432", "dbname=app", "user=app"]),
            Case(
                connection: "postgres://db/app?user=a&password=Pass%20Word&sslmode=verify-full",
                secrets: ["Pass", "Word"], shows: ["host=db", "user=a", "sslmode=verify-full"]),
            Case(
                connection: "postgresql://u:Multi-Host-Pw@h1:5432,h2:5433/app",
                secrets: ["Multi", "Host-Pw"], shows: ["host=h1,h2", "port=5432,5433"]),
            Case(
                connection: "host=a,b port=1,2 user=x password=Many-Hosts sslpassword=Key-Phrase",
                secrets: ["Many-Hosts", "Key-Phrase"], shows: ["host=a,b", "port=1,2"]),
            // Malformed: libpq cannot read them, and its message quotes the whole string.
            Case(connection: "postgresql://u:Broken-Pw@[::1/postgres", secrets: ["Broken-Pw", "u:"], shows: []),
            Case(connection: "host=db password='Unclosed-Pw user=x", secrets: ["Unclosed-Pw"], shows: []),
            Case(connection: "postgresql://u:Bad%zzPct@db/app", secrets: ["Bad", "zzPct"], shows: []),
        ]

        @Test("connectionDescription and every PostgresStoreError show nothing of the password", arguments: cases)
        func redacted(_ item: Case) throws {
            let database = try PostgresDatabase(connection: item.connection)
            let error = PostgresStoreError(kind: .connectionFailed, reason: "boom", connection: item.connection)
            let texts = [database.connectionDescription, "\(error)", String(reflecting: error), dumped(error)]
            for text in texts {
                for secret in item.secrets { #expect(!text.contains(secret), "\(text)") }
                for shown in item.shows { #expect(text.contains(shown), "\(text)") }
            }
            if item.shows.isEmpty { #expect(database.connectionDescription == ConnectionString.unreadable) }
        }

        @Test(
            "libpq's own messages about a string it cannot read are shown without the password",
            arguments: cases.filter(\.shows.isEmpty))
        func libpqMessages(_ item: Case) async throws {
            // The error is libpq's own: it reads the string before it would connect anywhere.
            let database = try PostgresDatabase(connection: item.connection, connectTimeout: 5)
            let coordinator = PostgresTokenCoordinator(database: database, key: "k")
            let error = await #expect(throws: PostgresStoreError.self) { _ = try await coordinator.read() }
            #expect(error?.kind == .connectionFailed)
            let session = AuthSession(store: PostgresTokenStore(database: database, key: "k"), refresh: { $0 })
            let authentication = await #expect(throws: AuthenticationError.self) { _ = try await session.validToken() }
            let texts = [error.map { "\($0)" } ?? "", authentication.map { "\($0)" } ?? "", dumped(authentication)]
            for text in texts {
                for secret in item.secrets { #expect(!text.contains(secret), "\(text)") }
            }
            await database.close()
        }

        @Test("the password is removed from a reason wherever it appears, and from free text that names one")
        func reasons() {
            let connection = "host=db user=x password=Hidden-Pw"
            let error = PostgresStoreError(
                kind: .statementFailed, reason: "role x with password Hidden-Pw refused", connection: connection)
            #expect(!error.description.contains("Hidden-Pw"))
            #expect(error.connection == "host=db user=x password=***")
            #expect(ConnectionString.redactingPasswordLikeText(#"password=a\ b\&c tail"#) == "password=*** tail")
            #expect(ConnectionString.redactingPasswordLikeText("password='x y' tail") == "password=*** tail")
        }

        private func dumped(_ value: Any?) -> String {
            var text = ""
            dump(value, to: &text)
            return text
        }
    }

#endif
