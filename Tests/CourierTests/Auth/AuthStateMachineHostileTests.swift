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
        _ = m.operationFinished(id, outcome: .renewed(newToken, generation: (m.generation ?? 0) + 1), now: now)
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
        var now = t0 + 0.1
        for round in 0..<2 {
            // The server rejects each token it just issued: the window fills.
            let rejected = m.token?.accessToken
            let id = try #require(m.requestRefresh(waiter: UInt64(round), rejecting: rejected, now: now).started)
            let new = OAuthToken(accessToken: "T\(round)", refreshToken: "R", expiresAt: now + 1, issuedAt: now)
            _ = m.operationFinished(id, outcome: .renewed(new, generation: UInt64(round + 2)), now: now)
            now += 0.1
        }
        now += 2
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
        case requestToken, requestRefresh, finishSuccess, finishAdopted, finishEnded, finishTransient, timeOut,
            signIn, signOut, otherSessionWrote, advanceClock
    }

    @Test(
        "random walk: never two operations in flight, every waiter answered exactly once",
        arguments: 0..<40)
    func randomWalk(seed: UInt64) throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        var m = Machine(
            token: OAuthToken(accessToken: "A0", refreshToken: "R0", expiresAt: t0 + 30, issuedAt: t0),
            generation: 0, window: seed % 2 == 0 ? RefreshWindow(interval: 30, maximumAttempts: 5) : nil,
            canAcquire: seed % 3 == 0)
        var now = t0
        var nextWaiter: UInt64 = 1
        var waiting: Set<UInt64> = []
        var answered: [UInt64: Int] = [:]
        // Operations started and neither finished nor cancelled: at most one, ever.
        var inFlight: [UInt64: Machine.Operation] = [:]
        var tokenCounter = 0
        var storeGeneration: UInt64 = 0

        func answer(_ waiters: [UInt64]) {
            for waiter in waiters {
                #expect(waiting.remove(waiter) != nil, "waiter \(waiter) answered twice")
                answered[waiter, default: 0] += 1
            }
        }

        /// Performs `action` as the session would; `requester` is the request that asked.
        func apply(_ action: Machine.RequestAction, requester: UInt64) {
            switch action {
            case .answer:
                answer([requester])
            case .join:
                break
            case .joinAndArmTimeout(let armed):
                #expect(inFlight[armed] != nil, "a time-out armed for an operation not in flight")
            case .start(let id, let operation):
                #expect(inFlight.isEmpty, "a second operation started while \(inFlight) was in flight")
                inFlight[id] = operation
            }
        }

        func apply(_ action: Machine.FinishAction) {
            switch action {
            case .ignore: break
            case .succeed(let waiters, _, _), .succeedUnstored(let waiters, _, _), .fail(let waiters),
                .expire(let waiters), .signOut(let waiters):
                answer(waiters)
            }
        }

        func apply(_ action: Machine.ReplaceAction) {
            answer(action.waiters)
            if let cancelled = action.cancel { inFlight[cancelled] = nil }
        }

        func newToken(_ prefix: String) -> OAuthToken {
            tokenCounter += 1
            let lifetimes: [TimeInterval] = [-5, 0, 1, 30, 3600]
            let lifetime = lifetimes[Int(random.next() % UInt64(lifetimes.count))]
            return OAuthToken(
                accessToken: "\(prefix)\(tokenCounter)", refreshToken: "R\(tokenCounter)", expiresAt: now + lifetime,
                issuedAt: now)
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
                guard let id = inFlight.keys.first else { continue }
                inFlight[id] = nil
                storeGeneration += 1
                apply(m.operationFinished(id, outcome: .renewed(newToken("A"), generation: storeGeneration), now: now))
            case .finishAdopted:
                guard let id = inFlight.keys.first else { continue }
                inFlight[id] = nil
                storeGeneration += 1
                let stored =
                    random.next() % 3 == 0
                    ? StoredToken(
                        token: nil, generation: storeGeneration,
                        change: random.next() % 2 == 0 ? .signedOut : .sessionExpired)
                    : StoredToken(token: newToken("O"), generation: storeGeneration, change: .refreshed)
                apply(m.operationFinished(id, outcome: .adopted(stored), now: now))
            case .finishEnded:
                guard let id = inFlight.keys.first else { continue }
                inFlight[id] = nil
                storeGeneration += 1
                let expiry = SessionExpiry(cause: .rejectedByTokenEndpoint, statusCode: 400, date: now)
                apply(m.operationFinished(id, outcome: .ended(expiry, generation: storeGeneration), now: now))
            case .finishTransient:
                guard let id = inFlight.keys.first else { continue }
                inFlight[id] = nil
                apply(m.operationFinished(id, outcome: .transient, now: now))
            case .timeOut:
                guard let id = inFlight.keys.first else { continue }
                switch m.operationTimedOut(id) {
                case .ignore: break
                case .fail(let waiters): answer(waiters)
                }
            case .signIn:
                storeGeneration += 1
                apply(m.signedIn(newToken("S"), generation: storeGeneration))
            case .signOut:
                apply(m.signedOut())
                storeGeneration += 1
                m.note(generation: storeGeneration)
            case .otherSessionWrote:
                storeGeneration += 1
                let token = random.next() % 4 == 0 ? nil : newToken("X")
                let change: TokenChange = token == nil ? .signedOut : .refreshed
                let action = m.storeChanged(
                    StoredToken(token: token, generation: storeGeneration, change: change), now: now)
                if inFlight.isEmpty { #expect(m.token == token || action == .none) } else { #expect(action == .none) }
            case .advanceClock:
                now += Double(random.next() % 40)
            }
            if case .busy(let operation) = m.phase {
                #expect(inFlight[operation.id] != nil, "the machine waits for an operation that is not running")
                #expect(Set(operation.waiters) == waiting, "every unanswered waiter waits for the operation")
            } else {
                #expect(waiting.isEmpty, "waiters left behind while idle: \(waiting)")
                #expect(inFlight.isEmpty, "an operation runs that the machine no longer waits for")
            }
            #expect(m.isBusy == !inFlight.isEmpty)
        }
        // Let whatever runs finish: everyone still waiting gets an answer.
        if let id = inFlight.keys.first {
            inFlight[id] = nil
            apply(m.operationFinished(id, outcome: .transient, now: now))
        }
        #expect(waiting.isEmpty)
        #expect(answered.values.allSatisfy { $0 == 1 })
        #expect(answered.count == Int(nextWaiter - 1))
    }
}
