import Courier
import CourierTestServer
import CourierTestServerTargets
import Foundation

#if PostgreSQLStore
    import CourierPostgres
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One process of the cross-process storm (`--child crossprocess-storm --child-count N`):
/// a session on the shared token file (`COURIER_BENCH_TOKEN_FILE`) against the test server
/// (`COURIER_BENCH_SERVER`). It warms up, says `READY`, and then for every `GO` on standard
/// input sends N requests at once, each held after signing until all N are signed (so all
/// carry the token the server has just expired), and answers
/// `RESULT seconds=… ok=… failures=…`: from the `GO` to the last success. It ends at
/// end-of-file.
///
/// With `COURIER_BENCH_POSTGRES` (a libpq connection string; built with the PostgreSQLStore
/// trait) its session is on a `PostgresTokenStore` of that database instead, key
/// `COURIER_BENCH_KEY`: one process of the fleet storm.
enum CrossProcessStormChild {
    static func run(count: Int) async throws -> [String: Double] {
        let environment = ProcessInfo.processInfo.environment
        guard let server = environment["COURIER_BENCH_SERVER"].flatMap(URL.init(string:)),
            let file = environment["COURIER_BENCH_TOKEN_FILE"]
        else { throw StormFailure(description: "COURIER_BENCH_SERVER and COURIER_BENCH_TOKEN_FILE are needed") }
        var store: any TokenStore = FileTokenStore(url: URL(fileURLWithPath: file))
        if let connection = environment["COURIER_BENCH_POSTGRES"] {
            #if PostgreSQLStore
                store = PostgresTokenStore(
                    database: try PostgresDatabase(connection: connection),
                    key: environment["COURIER_BENCH_KEY"] ?? "bench")
            #else
                throw StormFailure(
                    description:
                        "COURIER_BENCH_POSTGRES needs the PostgreSQLStore trait (\(connection.isEmpty ? "empty" : "set"))"
                )
            #endif
        }
        let tokens = Provider<TokenEndpoint>()
        let session = AuthSession(
            store: store,
            refresh: { token in
                let grant = TokenEndpoint.Grant.refresh(token.refreshToken ?? "")
                return try OAuthToken(response: await tokens.request(TokenEndpoint(base: server, grant: grant)))
            },
            refreshWindow: nil)
        let probe = StormProbe()
        let gate = SigningGate()
        let provider = RefreshableProvider<ProtectedAPI>(auth: session, plugins: [gate, probe])
        // Connections and lazy state, with the token still valid.
        _ = try await RefreshStormScenario.batch(count, provider: provider, base: server, probe: probe)
        say("READY")
        while let line = readLine() {
            guard line == "GO" else { continue }
            gate.arm(count)
            let outcome = try await RefreshStormScenario.batch(count, provider: provider, base: server, probe: probe)
            let seconds = outcome.lastSuccess.map { outcome.started.duration(to: $0).seconds } ?? -1
            say("RESULT seconds=\(seconds) ok=\(count - outcome.failures) failures=\(outcome.failures)")
        }
        return [:]
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// A storm child that lives across rounds, spoken to over its standard input and output.
final class StormChildProcess: Sendable {
    let lines: AsyncStream<String>
    private let handles: Locked<(process: Process, input: FileHandle)>

    /// Starts the child; `extra` is added to its environment (`COURIER_BENCH_POSTGRES`, …).
    init(count: Int, server: URL, tokenFile: URL, environment extra: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = ChildProcess.executable
        process.arguments = ["--child", "crossprocess-storm", "--child-count", "\(count)"]
        var environment = ProcessInfo.processInfo.environment
        environment["COURIER_BENCH_SERVER"] = server.absoluteString
        environment["COURIER_BENCH_TOKEN_FILE"] = tokenFile.path
        environment.merge(extra) { $1 }
        process.environment = environment
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        handles = Locked((process, input.fileHandleForWriting))
        lines = PipeReader.lines(of: output.fileHandleForReading, name: "StormChildProcess")
    }

    func send(_ line: String) {
        handles.withValue { try? $0.input.write(contentsOf: Data((line + "\n").utf8)) }
    }

    /// Closes the child's input: it ends.
    func finish() {
        handles.withValue { try? $0.input.close() }
    }
}
