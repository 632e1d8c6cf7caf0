import Courier
import CourierTesting
import Foundation
import Testing

/// Workers started together on one token file, each with an `acquire` closure: one gets the
/// first token, and every other one must hear `.acquired` too (the table in "Sharing a session
/// between processes" says so, and it is how a worker learns it has a session) — whether it
/// waited for the lease, noticed the write before a request, or found the token already
/// stored when it first read the store.
@Suite("AuthEvent.acquired reaches the sessions that adopt another's first token", .timeLimit(.minutes(20)))
struct AcquiredEventSharingTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-acquired-\(UUID().uuidString)")
    var file: URL { folder.appendingPathComponent("token.json") }

    func session(acquires: CallCounter) -> AuthSession {
        AuthSession(
            store: FileTokenStore(url: file), refresh: { $0 },
            acquire: {
                let call = acquires.increment()
                return OAuthToken(
                    accessToken: "at-\(call)", refreshToken: "rt-\(call)", expiresAt: Date().addingTimeInterval(3600),
                    issuedAt: Date())
            }, refreshTimeout: testRefreshTimeout)
    }

    /// The first occurrence `session` emits, after `trigger` runs; a sign-out after it bounds
    /// the wait (`.signedOut` comes first when nothing else was emitted).
    func firstOccurrence(of session: AuthSession, after trigger: () async throws -> Void) async throws
        -> AuthEvent.Occurrence?
    {
        let occurrences = session.eventOccurrences
        try await trigger()
        try await session.signOut()
        var iterator = occurrences.makeAsyncIterator()
        return await iterator.next()
    }

    @Test("a session that first reads the store after another acquired emits .acquired from anotherSession")
    func foundAtFirstRead() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let acquires = CallCounter()
        let first = session(acquires: acquires)
        let second = session(acquires: acquires)
        let own = first.eventOccurrences
        _ = try await first.validToken()
        var ownEvents = own.makeAsyncIterator()
        let acquired = await ownEvents.next()
        #expect(acquired?.event == .acquired)
        #expect(acquired?.source == .thisSession)

        let adopted = try await firstOccurrence(of: second) {
            let token = try await second.validToken()
            #expect(token.accessToken == "at-1")
        }
        #expect(adopted?.event == .acquired)
        #expect(adopted?.source == .anotherSession)
        #expect(acquires.value == 1)
    }

    @Test("workers started together, 10 rounds: one acquire, and every session emits .acquired exactly once")
    func startedTogether() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        for round in 0..<10 {
            try? FileManager.default.removeItem(at: folder)
            let acquires = CallCounter()
            let sessions = (0..<4).map { _ in session(acquires: acquires) }
            let streams = sessions.map(\.events)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for session in sessions {
                    group.addTask { _ = try await session.validToken() }
                }
                try await group.waitForAll()
            }
            #expect(acquires.value == 1, "round \(round)")
            // Each session's next event after its own sign-out is .signedOut: .acquired came once before it.
            for (session, stream) in zip(sessions, streams) {
                try await session.signOut()
                var events: [AuthEvent] = []
                for await event in stream {
                    events.append(event)
                    if event == .signedOut { break }
                }
                #expect(events.first == .acquired, "round \(round): \(events)")
                #expect(events.filter { $0 == .acquired }.count == 1, "round \(round): \(events)")
            }
        }
    }
}
