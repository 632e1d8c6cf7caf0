import Courier
import CourierTestServer
import CourierTestServerTargets
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 32 item 7: a token endpoint that stalls (it holds every refresh until the test lets it
/// go) must cost no session and fail no request early. A request waits for the renewal within
/// its own time-out (`URLRequest.timeoutInterval`), past the session's `refreshTimeout`: one
/// whose time-out is longer than the stall succeeds once the endpoint answers; one whose
/// time-out is shorter fails with a time-out, not with `refreshFailed`. The stall's length is
/// an event (the session's own `refreshFailed`, emitted when its waiters' `refreshTimeout`
/// passes), never a clock.
@Suite("A stalled token endpoint: requests wait within their own time-outs, no session ends", .timeLimit(.minutes(20)))
struct StalledTokenEndpointTests {
    /// The sessions' `abandonRefreshAfter`: the stall is held until the test releases it, which
    /// on a machine busy enough (the thread sanitizer beside eight busy loops) came after the
    /// default 120 s, when a session presumes its refresh lost and presents the refresh token
    /// again — the documented lost-answer case, which reuse detection rightly ends. What these
    /// tests claim is the waiting, not the abandonment, so no session here gives up on a refresh.
    static let neverAbandoned: TimeInterval = 3600

    /// The token endpoint's provider: its requests wait as long as the test holds them (the
    /// house's `testRefreshTimeout`, not URLSession's 60 s, which a busy machine's hold outlived:
    /// the refresh then failed though the server rotated the token, and the retry presented the
    /// used refresh token — the lost-answer case, not what these tests are about).
    static func patientTokenProvider() -> Provider<TokenEndpoint> {
        let configuration = URLSessionTransport.defaultConfiguration()
        configuration.timeoutIntervalForRequest = testRefreshTimeout
        configuration.timeoutIntervalForResource = testRefreshTimeout
        return Provider(transport: URLSessionTransport(configuration: configuration))
    }

    /// A session on `tokenFile` whose token looks expired, so its first request refreshes.
    static func expiredSession(
        _ server: TestServer, tokenFile: URL, refreshTimeout: TimeInterval
    ) async throws -> AuthSession {
        let tokens = StalledTokenEndpointTests.patientTokenProvider()
        let base = server.baseURL
        let session = AuthSession(
            store: FileTokenStore(url: tokenFile),
            refresh: { token in
                try OAuthToken(
                    response: await tokens.request(TokenEndpoint(base: base, grant: .refresh(token.refreshToken ?? "")))
                )
            },
            refreshTimeout: refreshTimeout, abandonRefreshAfter: Self.neverAbandoned)
        var token = try OAuthToken(tokenResponse: await server.issueToken(lifetime: 3600), receivedAt: Date())
        token.issuedAt = Date().addingTimeInterval(-7200)
        token.expiresAt = Date().addingTimeInterval(-3600)
        try await session.signIn(token)
        return session
    }

    /// A provider whose requests carry `timeout` as their own time-out.
    static func provider(_ session: AuthSession, timeout: TimeInterval) -> RefreshableProvider<ServerAPI> {
        RefreshableProvider<ServerAPI>(
            auth: session,
            requestClosure: { endpoint in
                var request = try endpoint.urlRequest()
                request.timeoutInterval = timeout
                return request
            })
    }

    @Test(
        "past refreshTimeout, a request with a longer time-out keeps waiting and succeeds; a shorter one times out")
    func waitsWithinItsOwnTimeout() async throws {
        let server = try await TestServer.start(tokenLifetime: 3600)
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-stall-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let hold = "stall-\(UUID().uuidString)"
        try await server.configure(.init(refreshHold: hold))
        let session = try await Self.expiredSession(
            server, tokenFile: folder.appendingPathComponent("token.json"), refreshTimeout: 0.3)
        let events = LockIsolated<[AuthEvent]>([])
        let stream = session.events
        let listener = Task { for await event in stream { events.withValue { $0.append(event) } } }
        defer { listener.cancel() }

        let long = Self.provider(session, timeout: 600)
        let short = Self.provider(session, timeout: 2)
        let longResult = LockIsolated<Result<Int, CourierError>?>(nil)
        let patient = Task {
            do throws(CourierError) {
                longResult.setValue(.success(try await long.request(ServerAPI(server, "api/patient")).statusCode))
            } catch {
                longResult.setValue(.failure(error))
            }
        }
        try await server.waitForHeldRequest(hold)
        let shortResult: Result<Int, CourierError>
        do throws(CourierError) {
            shortResult = .success(try await short.request(ServerAPI(server, "api/hasty")).statusCode)
        } catch {
            shortResult = .failure(error)
        }
        // The stall outlived the session's refresh time-out: its waiters were timed out (and
        // joined the refresh again) at least once.
        try await events.wait { $0.contains(.refreshFailed) }

        guard case .failure(let error) = shortResult else {
            Issue.record("the request with a 2 s time-out succeeded while the endpoint stalled: \(shortResult)")
            return
        }
        guard case .underlying(let underlying, _) = error, (underlying as? URLError)?.code == .timedOut else {
            Issue.record("a request whose own time-out passed failed with \(error), not a time-out")
            return
        }
        #expect(String(describing: error).contains("api/hasty"), "the error says which request: \(error)")
        #expect(
            longResult.value == nil, "the patient request is still waiting: \(String(describing: longResult.value))")

        try await server.releaseHeldRequest(hold)
        await patient.value
        #expect(longResult.value.flatMap { try? $0.get() } == 200, "\(String(describing: longResult.value))")
        #expect(await session.isSessionExpired == false)
        #expect(!events.value.contains(.sessionExpired))
        #expect(try await long.request(ServerAPI(server, "api/after")).statusCode == 200)
    }
}

/// Two processes on one token file, ten concurrent requests every 250 ms each, busy loops
/// beside them, 3-second tokens, and a token endpoint that stalls past every session's
/// `refreshTimeout` and then answers again: no logout, no refresh token presented twice, no
/// request failed (each waits within its own 60 s time-out), and a fresh process then uses the
/// file without signing in.
@Suite("Two processes under load through a stalled token endpoint", .timeLimit(.minutes(20)))
struct StalledTokenEndpointProcessTests {
    @Test("0 logouts, 0 refresh-token reuses, 0 failed requests; the sessions recover when the endpoint answers")
    func twoProcessesThroughAStall() async throws {
        let lifetime: TimeInterval = 3
        let server = try await TestServer.start(tokenLifetime: lifetime)
        defer { server.stop() }
        try await server.configure(.init(reuseDetection: true))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-stall-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokenFile = folder.appendingPathComponent("token.json")
        try FileTokenStore(url: tokenFile).save(
            OAuthToken(tokenResponse: await server.issueToken(lifetime: lifetime), receivedAt: Date()))
        let hold = "stall-\(UUID().uuidString)"
        try await server.configure(.init(refreshHold: hold))
        let busy = try BusyLoops(count: 4)
        defer { busy.stop() }

        let arguments = [
            "--server", server.baseURL.absoluteString, "--token-file", tokenFile.path, "--workers", "10",
            "--interval", "0.25", "--duration", "8", "--leeway", "1", "--refresh-timeout", "0.5",
            "--abandon-after", String(StalledTokenEndpointTests.neverAbandoned),
        ]
        var children: [ChildProcess] = []
        defer { for child in children { child.stop() } }
        let (lines, sink) = AsyncStream.makeStream(of: String.self)
        for _ in 0..<2 {
            let child = try ChildProcess(arguments)
            children.append(child)
            Task {
                for await line in child.lines { sink.yield(line) }
                sink.yield("EXIT")
            }
        }
        var reports: [ChildReport] = []
        var ready = 0
        var exited = 0
        var released = false
        var iterator = lines.makeAsyncIterator()
        while exited < 2, let line = await iterator.next() {
            if line == "READY" {
                ready += 1
                if ready == 2 {
                    for child in children { child.send("GO") }
                    // A witness in this process, on the same file, with a short refresh
                    // time-out: its `refreshFailed` events say that the stall has outlived the
                    // children's refresh time-out (0.5 s) — twice its own, 0.3 s, after its
                    // request began waiting behind the stalled refresh.
                    try await server.waitForHeldRequest(hold)
                    try await witnessAStall(server, tokenFile: tokenFile, hold: hold)
                    released = true
                }
            } else if line == "EXIT" {
                exited += 1
            } else if let report = ChildReport(line, prefix: "DONE") {
                reports.append(report)
            }
        }
        #expect(released)
        #expect(reports.count == 2, "every child reported: \(reports)")
        let total = { (key: String) in reports.reduce(0) { $0 + max(0, $1[key]) } }
        #expect(total("logouts") == 0, "\(reports.map(\.text))")
        #expect(total("timedOut") == 0, "no request failed on the session's refresh time-out: \(reports.map(\.text))")
        #expect(total("auth") == 0, "\(reports.map(\.text))")
        #expect(total("other") == 0, "\(reports.map(\.text))")
        #expect(total("ok") == total("requests") && total("requests") > 0, "\(reports.map(\.text))")
        let counters = try await server.counters()
        #expect(counters.refreshTokenReuses == 0)

        // A fresh process uses the file as it is: no sign-in, its request succeeds.
        let check = try ChildProcess(arguments + ["--mode", "check"])
        children.append(check)
        var checked: ChildReport?
        for await line in check.lines {
            if let report = ChildReport(line, prefix: "CHECK") {
                checked = report
                break
            }
        }
        #expect(checked?.text.contains("needsSignIn=false") == true, "\(String(describing: checked))")
        #expect(checked?["ok"] == 1)
    }

    /// Waits (on the witness's events) until the stalled refresh has outlived two of the
    /// witness's refresh time-outs (0.3 s each, so more than the children's 0.5 s), releases
    /// it, and checks that the witness then gets an answer with a renewed token.
    private func witnessAStall(_ server: TestServer, tokenFile: URL, hold: String) async throws {
        let tokens = StalledTokenEndpointTests.patientTokenProvider()
        let base = server.baseURL
        let witness = AuthSession(
            store: FileTokenStore(url: tokenFile),
            refresh: { token in
                try OAuthToken(
                    response: await tokens.request(TokenEndpoint(base: base, grant: .refresh(token.refreshToken ?? "")))
                )
            },
            refreshTimeout: 0.3, abandonRefreshAfter: StalledTokenEndpointTests.neverAbandoned)
        let timeouts = LockIsolated(0)
        let stream = witness.events
        let listener = Task {
            for await event in stream where event == .refreshFailed { timeouts.withValue { $0 += 1 } }
        }
        defer { listener.cancel() }
        let provider = StalledTokenEndpointTests.provider(witness, timeout: 600)
        // Its token is due for renewal (less than half its life left), so it waits behind the
        // stalled refresh, whose lease another process holds. Sent again while it fails (a
        // bounded number of times), so the events keep coming whether or not a request waits
        // past the refresh time-out: the children are what this test checks.
        let waiting = Task { () -> Int? in
            for _ in 0..<1000 {
                if let status = try? await provider.request(ServerAPI(server, "api/witness")).statusCode {
                    return status
                }
            }
            return nil
        }
        try await timeouts.wait { $0 >= 2 }
        try await server.releaseHeldRequest(hold)
        let status = await waiting.value
        #expect(status == 200, "the witness got an answer once the endpoint answered")
        #expect(await witness.isSessionExpired == false)
    }
}
