import Foundation
import Testing

@testable import Courier

/// The state machine against lifetimes that would make every request refresh first, and a
/// seeded random walk over every input that proves the single-flight promise: a refresh
/// token is never sent twice at once, and every waiter is answered exactly once.
@Suite("AuthStateMachine with hostile lifetimes and timing")
struct AuthStateMachineHostileTests {
    typealias Machine = AuthStateMachine

    let t0 = Date(timeIntervalSince1970: 1_000_000)

    /// Refreshes through `machine` once, with `newToken` arriving at `now`.
    private func refresh(_ m: inout Machine, waiter: UInt64, to newToken: OAuthToken, now: Date) throws {
        let id = try #require(m.requestRefresh(waiter: waiter, rejecting: m.token?.accessToken, now: now).start?.id)
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
            let effects = m.requestToken(waiter: UInt64(10 + second), minimumValidity: 60, now: t0 + Double(second))
            #expect(effects == Machine.Effects(resume: [.init(waiter: UInt64(10 + second), result: .success(skewed))]))
        }
        // The server rejects it: one refresh, and the next token's expiry counts again.
        let next = OAuthToken(accessToken: "C", refreshToken: "R3", expiresAt: t0 + 3600)
        try refresh(&m, waiter: 200, to: next, now: t0 + 100)
        #expect(!m.ignoresExpiry)
        #expect(m.requestToken(waiter: 201, minimumValidity: 60, now: t0 + 3590).start != nil)
    }

    @Test("a token with an expiry but no issuedAt gets its leeway capped by the lifetime it arrived with")
    func leewayWithoutIssuedAt() throws {
        var m = Machine(
            token: OAuthToken(accessToken: "A", refreshToken: "R"), window: RefreshWindow(), canAcquire: false)
        let short = OAuthToken(accessToken: "B", refreshToken: "R2", expiresAt: t0 + 10)
        try refresh(&m, waiter: 1, to: short, now: t0)
        // A 60 s leeway on a 10 s token would refresh on every request; capped at 5 s.
        #expect(m.requestToken(waiter: 2, minimumValidity: 60, now: t0 + 4).resume.first?.result == .success(short))
        #expect(m.requestToken(waiter: 3, minimumValidity: 60, now: t0 + 6).start != nil)
    }

    @Test("a hand-built token with a NaN or infinite expiry is used, never refreshed by the clock")
    func nonFiniteExpiry() {
        for expiry in [Double.nan, .infinity, -.infinity] {
            let token = OAuthToken(
                accessToken: "A", refreshToken: "R", expiresAt: Date(timeIntervalSinceReferenceDate: expiry),
                issuedAt: t0)
            var m = Machine(token: token, window: RefreshWindow(), canAcquire: false)
            let effects = m.requestToken(waiter: 1, minimumValidity: 60, now: t0)
            // Compared by access token: a NaN date is not equal to itself, and a failed
            // expectation would reflect (and describe) the NaN date.
            let used =
                effects.start == nil && effects.resume.count == 1
                && (try? effects.resume[0].result.get().accessToken) == "A"
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
            let id = try #require(m.requestToken(waiter: UInt64(round), minimumValidity: 0, now: now).start?.id)
            let new = OAuthToken(accessToken: "T\(round)", refreshToken: "R", expiresAt: now + 1, issuedAt: now)
            _ = m.operationFinished(id, outcome: .success(new))
            _ = m.persisted(id, token: new, succeeded: true, now: now)
            now += 2
        }
        let current = try #require(m.token)
        // Due by the clock, window spent: the server decides, nobody is locked out.
        let effects = m.requestToken(waiter: 10, minimumValidity: 0, now: now)
        #expect(effects == Machine.Effects(resume: [.init(waiter: 10, result: .success(current))]))
        // The server rejected it: now the window applies.
        let refused = m.requestRefresh(waiter: 11, rejecting: current.accessToken, now: now)
        #expect(refused.resume.first?.result == .failure(.excessiveRefresh))
    }

    @Test("a refresh window with a NaN interval counts as the default 30 s, so refreshes age out")
    func nanWindow() throws {
        var m = Machine(
            token: OAuthToken(accessToken: "A", refreshToken: "R"),
            window: RefreshWindow(interval: .nan, maximumAttempts: 1), canAcquire: false)
        try refresh(&m, waiter: 1, to: OAuthToken(accessToken: "B", refreshToken: "R2"), now: t0)
        let refused = m.requestRefresh(waiter: 2, rejecting: "B", now: t0 + 1)
        #expect(refused.resume.first?.result == .failure(.excessiveRefresh))
        #expect(m.requestRefresh(waiter: 3, rejecting: "B", now: t0 + 31).start != nil)
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
        var random = SplitMix64(state: seed)
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

        func apply(_ effects: Machine.Effects) {
            for resumption in effects.resume {
                #expect(waiting.remove(resumption.waiter) != nil, "waiter \(resumption.waiter) answered twice")
                answered[resumption.waiter, default: 0] += 1
            }
            if let cancelled = effects.cancel {
                inFlight[cancelled] = nil
                if pendingPersist?.id == cancelled { pendingPersist = nil }
            }
            if let (id, operation) = effects.start {
                #expect(inFlight.isEmpty, "a second operation started while \(inFlight) was in flight")
                inFlight[id] = operation
            }
            if let armed = effects.armTimeout {
                #expect(inFlight[armed] != nil, "a time-out armed for an operation not in flight")
            }
        }

        for _ in 0..<400 {
            switch Input.allCases[Int(random.next() % UInt64(Input.allCases.count))] {
            case .requestToken:
                waiting.insert(nextWaiter)
                apply(m.requestToken(waiter: nextWaiter, minimumValidity: 10, now: now))
                nextWaiter += 1
            case .requestRefresh:
                waiting.insert(nextWaiter)
                let stale = random.next() % 2 == 0 ? m.token?.accessToken : "OLD"
                apply(m.requestRefresh(waiter: nextWaiter, rejecting: stale, now: now))
                nextWaiter += 1
            case .finishSuccess:
                guard let id = inFlight.keys.first, pendingPersist == nil else { continue }
                tokenCounter += 1
                let lifetimes: [TimeInterval] = [-5, 0, 1, 30, 3600]
                let lifetime = lifetimes[Int(random.next() % UInt64(lifetimes.count))]
                let token = OAuthToken(
                    accessToken: "A\(tokenCounter)", refreshToken: "R\(tokenCounter)", expiresAt: now + lifetime,
                    issuedAt: now)
                let effects = m.operationFinished(id, outcome: .success(token))
                if case .save(let saved) = effects.persist { pendingPersist = (id, saved) }
                apply(effects)
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
