import Courier
import CourierTesting
import Foundation
import Testing

/// A refresh that outlives `refreshTimeout`, with real concurrency: its refresh token is
/// never sent a second time while it is in flight, whoever asks and however often.
@Suite("AuthSession with a late refresh", .timeLimit(.minutes(20)))
struct AuthSessionLateRefreshTests {
    @Test("after a time-out, 50 concurrent callers join the refresh in flight — 20 rounds, one refresh each")
    func joinAfterTimeout() async throws {
        for round in 0..<20 {
            let calls = CallCounter()
            let inFlight = InFlightGauge()
            let release = AsyncStream.makeStream(of: Void.self)
            let session = AuthSession(
                store: InMemoryTokenStore(AuthSessionTests.token("old", lifetime: -1)),
                refresh: { token in
                    calls.increment()
                    // Two at once would be the same refresh token sent twice.
                    #expect(inFlight.enter() == 1)
                    defer { inFlight.leave() }
                    #expect(token.accessToken == "old")
                    for await _ in release.stream { break }
                    return AuthSessionTests.token("new-\(round)", refresh: "R-\(round)")
                },
                refreshTimeout: 0.05)
            // The first caller gives up after the time-out; the refresh goes on.
            await #expect {
                try await session.validToken()
            } throws: { error in
                guard case .refreshFailed(let underlying) = error as? AuthenticationError else { return false }
                return underlying is RefreshTimeout
            }
            // Subscribed before the release, so the adoption of the late answer is seen.
            let events = session.events
            let results = await withTaskGroup(of: Result<String, AuthenticationError>.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        do {
                            let token =
                                index.isMultiple(of: 2)
                                ? try await session.validToken(minimumValidity: 60)
                                : try await session.refresh(rejectingAccessToken: "old")
                            return .success(token.accessToken)
                        } catch {
                            return .failure(error as? AuthenticationError ?? .refreshFailed(error))
                        }
                    }
                }
                group.addTask {
                    release.continuation.yield()
                    return .success("released")
                }
                return await group.reduce(into: [Result<String, AuthenticationError>]()) { $0.append($1) }
            }
            for result in results {
                switch result {
                case .success(let name): #expect(name == "new-\(round)" || name == "released")
                // A caller whose own 50 ms ran out before the release (a busy machine).
                case .failure(.refreshFailed(let underlying)): #expect(underlying is RefreshTimeout)
                case .failure(let error): Issue.record("round \(round): \(error)")
                }
            }
            #expect(calls.value == 1, "round \(round): the refresh token was sent \(calls.value) times")
            // The late answer is the session's token now, and it is used without a refresh.
            for await event in events where event == .refreshed { break }
            #expect(try await session.validToken().accessToken == "new-\(round)")
            #expect(calls.value == 1)
            release.continuation.finish()
        }
    }
}

/// How many refreshes run at this moment.
private final class InFlightGauge: Sendable {
    private let count = LockIsolated(0)

    func enter() -> Int {
        count.withValue { count in
            count += 1
            return count
        }
    }
    func leave() { count.withValue { $0 -= 1 } }
}
