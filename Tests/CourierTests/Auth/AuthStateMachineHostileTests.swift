import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The state machine against lifetimes that would make every request refresh first, and a
/// seeded random walk over every input that proves the single-flight promise: a refresh
/// token is never sent twice at once, and every waiter is answered exactly once.
@Suite("AuthSession.StateMachine with hostile lifetimes and timing")
struct AuthStateMachineHostileTests {
    typealias Machine = AuthSession.StateMachine

    let t0 = Date(timeIntervalSince1970: 1_000_000)

    /// Refreshes through `machine` once, with `newToken` arriving at `now`.
    private func refresh(_ m: inout Machine, waiter: UInt64, to newToken: OAuthToken, now: Date) throws {
        let action = m.requestRefresh(waiter: waiter, rejecting: m.token?.accessToken, now: now)
        let id = try #require(action.started)
        _ = m.operationFinished(id, outcome: .success(newToken))
        _ = m.persisted(id, token: newToken, succeeded: true, now: now)
    }

    @Test("a token that arrives already expired (clock skew) is used until the server rejects it")
    func arrivesExpired() throws {
        var m = Machine(
            token: OAuthToken(accessToken: "A", refreshToken: "R"), window: RefreshWindow(), canAcquire: false)
        // The server's clock runs an hour behind: its expiry is in our past on arrival.
        let skewed = OAuthToken(accessToken: "B", refreshToken: "R2", expiresAt: t0 - 3000)
        try refresh(&m, waiter: 1, to: skewed, now: t0)
        #expect(m.ignoresExpiry)
        for second in 0..<100 {
            let action = m.requestToken(waiter: UInt64(10 + second), minimumValidity: 60, now: t0 + Double(second))
            #expect(action == .answer(.success(skewed)))
        }
        // The server rejects it: one refresh, and the next token's expiry counts again.
        let next = OAuthToken(accessToken: "C", refreshToken: "R3", expiresAt: t0 + 3600)
        try refresh(&m, waiter: 200, to: next, now: t0 + 100)
        #expect(!m.ignoresExpiry)
        #expect(m.requestToken(waiter: 201, minimumValidity: 60, now: t0 + 3590).started != nil)
    }

    @Test("a token with an expiry but no issuedAt gets its leeway capped by the lifetime it arrived with")
    func leewayWithoutIssuedAt() throws {
        var m = Machine(
            token: OAuthToken(accessToken: "A", refreshToken: "R"), window: RefreshWindow(), canAcquire: false)
        let short = OAuthToken(accessToken: "B", refreshToken: "R2", expiresAt: t0 + 10)
        try refresh(&m, waiter: 1, to: short, now: t0)
        // A 60 s leeway on a 10 s token would refresh on every request; capped at 5 s.
        #expect(m.requestToken(waiter: 2, minimumValidity: 60, now: t0 + 4) == .answer(.success(short)))
        #expect(m.requestToken(waiter: 3, minimumValidity: 60, now: t0 + 6).started != nil)
    }

    @Test("a hand-built token with a NaN or infinite expiry is used, never refreshed by the clock")
    func nonFiniteExpiry() {
        for expiry in [Double.nan, .infinity, -.infinity] {
            let token = OAuthToken(
                accessToken: "A", refreshToken: "R", expiresAt: Date(timeIntervalSinceReferenceDate: expiry),
                issuedAt: t0)
            var m = Machine(token: token, window: RefreshWindow(), canAcquire: false)
            let action = m.requestToken(waiter: 1, minimumValidity: 60, now: t0)
            // Compared by access token: a NaN date is not equal to itself, and a failed
            // expectation would reflect (and describe) the NaN date.
            var used = false
            if case .answer(.success(let token)) = action { used = token.accessToken == "A" }
            #expect(used, "expiry \(expiry)")
        }
    }

    @Test("when the refresh window is spent, a token that is only due by the clock is still sent; a rejected one fails")
    func windowSpentProactively() throws {
        var m = Machine(
            token: OAuthToken(accessToken: "A", refreshToken: "R", expiresAt: t0 + 1, issuedAt: t0),
            window: RefreshWindow(interval: 30, maximumAttempts: 2), canAcquire: false)
        var now = t0 + 2
        for round in 0..<2 {
            // Every new token "expires" at once: a server whose lifetimes are too short.
            let id = try #require(m.requestToken(waiter: UInt64(round), minimumValidity: 0, now: now).started)
            let new = OAuthToken(accessToken: "T\(round)", refreshToken: "R", expiresAt: now + 1, issuedAt: now)
            _ = m.operationFinished(id, outcome: .success(new))
            _ = m.persisted(id, token: new, succeeded: true, now: now)
            now += 2
        }
        let current = try #require(m.token)
        // Due by the clock, window spent: the server decides, nobody is locked out.
        #expect(m.requestToken(waiter: 10, minimumValidity: 0, now: now) == .answer(.success(current)))
        // The server rejected it: now the window applies.
        let refused = m.requestRefresh(waiter: 11, rejecting: current.accessToken, now: now)
        #expect(refused == .answer(.failure(.excessiveRefresh)))
    }

    @Test("a refresh window with a NaN interval counts as the default 30 s, so refreshes age out")
    func nanWindow() throws {
        var m = Machine(
            token: OAuthToken(accessToken: "A", refreshToken: "R"),
            window: RefreshWindow(interval: .nan, maximumAttempts: 1), canAcquire: false)
        try refresh(&m, waiter: 1, to: OAuthToken(accessToken: "B", refreshToken: "R2"), now: t0)
        let refused = m.requestRefresh(waiter: 2, rejecting: "B", now: t0 + 1)
        #expect(refused == .answer(.failure(.excessiveRefresh)))
        #expect(m.requestRefresh(waiter: 3, rejecting: "B", now: t0 + 31).started != nil)
    }

    /// The inputs of the random walk.
    private enum Input: CaseIterable {
        case requestToken, requestRefresh, finishSuccess, finishRejected, finishTransient, persistFails, timeOut,
            signIn, signOut, advanceClock
    }

    @Test(
        "random walk: never two operations in flight, every waiter answered exactly once",
        arguments: 0..<40)
    func randomWalk(seed: UInt64) throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        var m = Machine(
            token: OAuthToken(accessToken: "A0", refreshToken: "R0", expiresAt: t0 + 30, issuedAt: t0),
            window: seed % 2 == 0 ? RefreshWindow(interval: 30, maximumAttempts: 5) : nil,
            canAcquire: seed % 3 == 0)
        var now = t0
        var nextWaiter: UInt64 = 1
        var waiting: Set<UInt64> = []
        var answered: [UInt64: Int] = [:]
        // Operations started and neither finished nor cancelled: at most one, ever.
        var inFlight: [UInt64: Machine.Operation] = [:]
        var pendingPersist: (id: UInt64, token: OAuthToken)?
        var tokenCounter = 0

        func answer(_ waiters: [UInt64]) {
            for waiter in waiters {
                #expect(waiting.remove(waiter) != nil, "waiter \(waiter) answered twice")
                answered[waiter, default: 0] += 1
            }
        }

        /// Performs `action` as the session would; `requester` is the request that asked.
        func apply(_ action: Machine.Action, requester: UInt64? = nil) {
            switch action {
            case .none, .persist:
                break
            case .answer:
                answer(requester.map { [$0] } ?? [])
                #expect(requester != nil, "an answer for no request")
            case .armTimeout(let armed):
                #expect(inFlight[armed] != nil, "a time-out armed for an operation not in flight")
            case .start(let id, let operation):
                #expect(inFlight.isEmpty, "a second operation started while \(inFlight) was in flight")
                inFlight[id] = operation
            case .succeed(let waiters, _, _), .fail(let waiters), .expire(let waiters):
                answer(waiters)
            case .replace(_, let waiters, _, let cancelled):
                answer(waiters)
                if let cancelled {
                    inFlight[cancelled] = nil
                    if pendingPersist?.id == cancelled { pendingPersist = nil }
                }
            }
        }

        for _ in 0..<400 {
            switch Input.allCases[Int(random.next() % UInt64(Input.allCases.count))] {
            case .requestToken:
                waiting.insert(nextWaiter)
                apply(m.requestToken(waiter: nextWaiter, minimumValidity: 10, now: now), requester: nextWaiter)
                nextWaiter += 1
            case .requestRefresh:
                waiting.insert(nextWaiter)
                let stale = random.next() % 2 == 0 ? m.token?.accessToken : "OLD"
                apply(m.requestRefresh(waiter: nextWaiter, rejecting: stale, now: now), requester: nextWaiter)
                nextWaiter += 1
            case .finishSuccess:
                guard let id = inFlight.keys.first, pendingPersist == nil else { continue }
                tokenCounter += 1
                let lifetimes: [TimeInterval] = [-5, 0, 1, 30, 3600]
                let lifetime = lifetimes[Int(random.next() % UInt64(lifetimes.count))]
                let token = OAuthToken(
                    accessToken: "A\(tokenCounter)", refreshToken: "R\(tokenCounter)", expiresAt: now + lifetime,
                    issuedAt: now)
                let action = m.operationFinished(id, outcome: .success(token))
                if case .persist(let saved) = action { pendingPersist = (id, saved) }
                apply(action)
            case .persistFails:
                guard let (id, token) = pendingPersist else { continue }
                pendingPersist = nil
                inFlight[id] = nil
                apply(m.persisted(id, token: token, succeeded: random.next() % 4 != 0, now: now))
            case .finishRejected:
                guard let id = inFlight.keys.first, pendingPersist == nil else { continue }
                inFlight[id] = nil
                apply(m.operationFinished(id, outcome: .rejected))
            case .finishTransient:
                guard let id = inFlight.keys.first, pendingPersist == nil else { continue }
                inFlight[id] = nil
                apply(m.operationFinished(id, outcome: .transient))
            case .timeOut:
                guard let id = inFlight.keys.first else { continue }
                apply(m.operationTimedOut(id))
            case .signIn:
                tokenCounter += 1
                apply(
                    m.signedIn(
                        OAuthToken(
                            accessToken: "S\(tokenCounter)", refreshToken: "RS\(tokenCounter)", expiresAt: now + 60,
                            issuedAt: now)))
            case .signOut:
                apply(m.signedOut())
            case .advanceClock:
                now += Double(random.next() % 40)
            }
            if case .busy(let operation) = m.phase {
                #expect(inFlight[operation.id] != nil, "the machine waits for an operation that is not running")
                #expect(Set(operation.waiters) == waiting, "every unanswered waiter waits for the operation")
            } else {
                #expect(waiting.isEmpty, "waiters left behind while idle: \(waiting)")
            }
        }
        // Let whatever runs finish: everyone still waiting gets an answer.
        if let (id, token) = pendingPersist {
            inFlight[id] = nil
            apply(m.persisted(id, token: token, succeeded: true, now: now))
        }
        if let id = inFlight.keys.first {
            inFlight[id] = nil
            apply(m.operationFinished(id, outcome: .transient))
        }
        #expect(waiting.isEmpty)
        #expect(answered.values.allSatisfy { $0 == 1 })
        #expect(answered.count == Int(nextWaiter - 1))
    }
}
