import Courier
import CourierTesting
import Foundation
import Testing

/// AuthSession with closure-backed refreshes: real concurrency, no network. A refresh is held
/// at a gate, or until its callers have all been started, never for a time.
@Suite("AuthSession", .timeLimit(.minutes(20)))
struct AuthSessionTests {
    static func token(_ name: String, refresh: String? = "R", lifetime: TimeInterval = 3600) -> OAuthToken {
        OAuthToken(
            accessToken: name, refreshToken: refresh, expiresAt: Date().addingTimeInterval(lifetime), issuedAt: Date())
    }

    @Test("100 concurrent callers with an expired token share one refresh — 50 rounds")
    func singleFlightUnderConcurrency() async throws {
        for round in 0..<50 {
            let calls = CallCounter()
            let started = CallCounter()
            let session = AuthSession(
                store: InMemoryTokenStore(Self.token("old", lifetime: -1)),
                refresh: { _ in
                    calls.increment()
                    // Held until every caller has been started: they all ask while it runs.
                    try await started.wait(forAtLeast: 100)
                    return Self.token("new-\(round)")
                },
                // Held by the test: it must not time out on a slow machine (not the claim here).
                refreshTimeout: 3_600)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        started.increment()
                        return index.isMultiple(of: 2)
                            ? try await session.validToken().accessToken
                            : try await session.refresh(rejectingAccessToken: "old").accessToken
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(calls.value == 1)
            #expect(Set(tokens) == ["new-\(round)"])
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    // (Only upwards: awaiting a task's value raises a lower one to the awaiting test's.)
    @Test("a refresh started by a high-priority request runs at high priority, not the default")
    func refreshPriority() async throws {
        let priority = TaskPriority.high
        let seen = LockIsolated<TaskPriority?>(nil)
        let session = AuthSession(
            store: InMemoryTokenStore(Self.token("old", lifetime: -1)),
            refresh: { _ in
                seen.setValue(Task.currentPriority)
                return Self.token("new")
            }, refreshTimeout: testRefreshTimeout)
        let token = try await Task(priority: priority) { try await session.validToken() }.value
        #expect(token.accessToken == "new")
        #expect(seen.value == priority)
    }

    @Test("cancelling the caller that triggered the refresh cancels only that caller")
    func cancelTrigger() async throws {
        let executor = SerialTaskExecutor()
        let gate = Gate()
        let calls = CallCounter()
        let session = AuthSession(
            store: InMemoryTokenStore(Self.token("old", lifetime: -1)),
            refresh: { _ in
                calls.increment()
                // A cancelled refresh would throw here, and the others would fail with it.
                try await gate.wait()
                return Self.token("new")
            },
            // Held by the test: it must not time out on a slow machine (not the claim here).
            refreshTimeout: 3_600)
        let trigger = Task { try await session.validToken() }
        try await calls.wait(forAtLeast: 1)
        let others = (0..<5).map { _ in Task(executorPreference: executor) { try await session.validToken() } }
        // All five wait for the refresh that the trigger started.
        try await executor.waitUntilIdle()
        trigger.cancel()
        await #expect {
            try await trigger.value
        } throws: { error in
            if case .cancelled = error as? AuthenticationError { return true }
            return false
        }
        gate.open()
        for other in others {
            #expect(try await other.value.accessToken == "new")
        }
        #expect(calls.value == 1)
        #expect(await session.token?.accessToken == "new")
    }

    @Test("a refresh longer than refreshTimeout fails its waiters, and its late answer is kept")
    func timeout() async throws {
        let calls = CallCounter()
        let release = AsyncStream.makeStream(of: Void.self)
        let session = AuthSession(
            store: InMemoryTokenStore(Self.token("old", lifetime: -1)),
            refresh: { _ in
                let call = calls.increment()
                // The first refresh hangs until the test lets it answer.
                if call == 1 { for await _ in release.stream { break } }
                return Self.token("new-\(call)")
            },
            refreshTimeout: 0.2)
        await #expect {
            try await session.validToken()
        } throws: { error in
            guard case .refreshFailed(let underlying) = error as? AuthenticationError else { return false }
            return underlying is RefreshTimeout
        }
        #expect(await session.token?.accessToken == "old", "the waiter failed while the refresh still hung")
        // The late answer arrives and is adopted: nothing else changed the token.
        let events = session.events
        release.continuation.yield()
        for await event in events where event == .refreshed { break }
        #expect(await session.token?.accessToken == "new-1")
        #expect(calls.value == 1)
    }

    @Test("invalid_grant ends the session: store cleared, one event, fail fast without calling refresh")
    func rejection() async throws {
        let calls = CallCounter()
        let store = InMemoryTokenStore(Self.token("old", lifetime: -1))
        let session = AuthSession(
            store: store,
            refresh: { _ in
                calls.increment()
                throw CourierError.statusCode(Response(statusCode: 400, data: Data(#"{"error":"invalid_grant"}"#.utf8)))
            }, refreshTimeout: testRefreshTimeout)
        let events = session.events
        let collected = Task { () -> [AuthEvent] in
            var seen: [AuthEvent] = []
            for await event in events {
                seen.append(event)
                if event == .signedIn { break }
            }
            return seen
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await #expect {
                        try await session.validToken()
                    } throws: { error in
                        if case .sessionExpired = error as? AuthenticationError { return true }
                        return false
                    }
                }
            }
            try await group.waitForAll()
        }
        for _ in 0..<5 {
            await #expect(throws: AuthenticationError.self) { try await session.refresh(rejectingAccessToken: nil) }
        }
        #expect(calls.value == 1)
        #expect(store.load() == nil)
        #expect(await session.isSessionExpired)
        try await session.signIn(Self.token("fresh"))
        #expect(await collected.value == [.sessionExpired, .signedIn])
    }

    @Test("a transient failure keeps the stored refresh token and the next call refreshes again")
    func transient() async throws {
        let calls = CallCounter()
        let store = InMemoryTokenStore(Self.token("old", refresh: "R-keep", lifetime: -1))
        let session = AuthSession(
            store: store,
            refresh: { old in
                if calls.increment() == 1 { throw URLError(.timedOut) }
                #expect(old.refreshToken == "R-keep")
                return Self.token("new", refresh: nil)
            }, refreshTimeout: testRefreshTimeout)
        await #expect {
            try await session.validToken()
        } throws: { error in
            guard case .refreshFailed(let underlying) = error as? AuthenticationError else { return false }
            return (underlying as? URLError)?.code == .timedOut
        }
        #expect(store.load()?.refreshToken == "R-keep")
        let token = try await session.validToken()
        #expect(token.accessToken == "new")
        #expect(token.refreshToken == "R-keep", "a response without refresh_token keeps the old one")
        #expect(store.load()?.refreshToken == "R-keep")
    }

    @Test("sign-out during a refresh: waiters fail and the old session does not come back")
    func signOutDuringRefresh() async throws {
        let store = InMemoryTokenStore(Self.token("old", lifetime: -1))
        let gate = Gate()
        let started = CallCounter()
        let released = CallCounter()
        try await {
            let sentinel = ReleaseSignal(released)
            let session = AuthSession(
                store: store,
                refresh: { _ in
                    withExtendedLifetime(sentinel) {}
                    started.increment()
                    // The sign-out cancels the refresh; it answers all the same, once let go.
                    try? await gate.wait()
                    return Self.token("resurrected")
                },
                // Held by the test: it must not time out on a slow machine (not the claim here).
                refreshTimeout: 3_600)
            let waiter = Task { try await session.validToken() }
            try await started.wait(forAtLeast: 1)
            try await session.signOut()
            await #expect {
                try await waiter.value
            } throws: { error in
                if case .missingCredential = error as? AuthenticationError { return true }
                return false
            }
            #expect(await session.token == nil)
            gate.open()
        }()
        // The sentinel goes when the session (which holds the refresh closure) and the refresh
        // task are both gone: the late answer has been dealt with by then.
        try await released.wait(forAtLeast: 1)
        #expect(store.load() == nil, "the late answer did not bring the old session back")
    }

    @Test("first-token acquisition is single-flight across 50 concurrent callers — 20 rounds")
    func acquire() async throws {
        for _ in 0..<20 {
            let calls = CallCounter()
            let started = CallCounter()
            let session = AuthSession(
                refresh: { _ in throw URLError(.badServerResponse) },
                acquire: {
                    calls.increment()
                    // Held until every caller has been started: they all ask while it runs.
                    try await started.wait(forAtLeast: 50)
                    return Self.token("anonymous")
                },
                // Held by the test: it must not time out on a slow machine (not the claim here).
                refreshTimeout: 3_600)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        started.increment()
                        let token = try await session.validToken()
                        #expect(token.accessToken == "anonymous")
                    }
                }
                try await group.waitForAll()
            }
            #expect(calls.value == 1)
        }
    }

    @Test("every listener gets every event from the moment it subscribed")
    func events() async throws {
        let session = AuthSession(refresh: { _ in Self.token("n") }, refreshTimeout: testRefreshTimeout)
        let first = session.events
        try await session.signIn(Self.token("a"))
        let second = session.events
        try await session.signOut()
        var firstIterator = first.makeAsyncIterator()
        var secondIterator = second.makeAsyncIterator()
        #expect(await firstIterator.next() == .signedIn)
        #expect(await firstIterator.next() == .signedOut)
        #expect(await secondIterator.next() == .signedOut)
    }
}

/// Counts its own release: captured by a refresh closure, it goes once the session that holds
/// the closure and every task running it are gone.
final class ReleaseSignal: Sendable {
    private let released: CallCounter

    init(_ released: CallCounter) {
        self.released = released
    }

    deinit {
        released.increment()
    }
}
